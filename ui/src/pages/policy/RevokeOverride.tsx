/**
 * Revoking one active override (`POST /policy/overrides/revoke`) with an
 * optional reason (1..1024 characters); final. The list reloads on the
 * `policy_override.revoked` event, and `onDone` reloads it at once too.
 */
import { call } from "../../app/api.ts"
import { ReasonPanel } from "../../components/ReasonPanel.tsx"
import type { PolicyOverride } from "./types.ts"

/** The revoke panel of `override`. */
export const RevokeOverride = ({ override, onClose, onDone }: { override: PolicyOverride; onClose: () => void; onDone: (message: string) => void }) => (
  <ReasonPanel
    id="revoke-override-title"
    itemKey={override.policy_override_id}
    level={3}
    title={<>Revoke override {override.tool_id} <code>{override.pattern}</code></>}
    hint="Tool calls it let through will ask for an approval again. Revoking is final."
    maxLength={1024}
    confirm="Revoke override"
    onConfirm={async (reason) => {
      const answer = await call((c) =>
        c.policyBundle.revokeOverride({
          payload: { policy_override_id: override.policy_override_id, ...(reason === undefined ? {} : { reason }) }
        })
      )
      return `Override ${answer.override.tool_id} ${answer.override.pattern} revoked.`
    }}
    onClose={onClose}
    onDone={onDone}
  />
)
