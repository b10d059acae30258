/**
 * Revoking one active override (`POST /policy/overrides/revoke`) with an
 * optional reason (1..1024 characters); final. The list reloads on the
 * `policy_override.revoked` event, and `onDone` reloads it at once too.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { PolicyOverride } from "./types.ts"

/** The revoke panel of `override`. */
export const RevokeOverride = ({ override, onClose, onDone }: { override: PolicyOverride; onClose: () => void; onDone: (message: string) => void }) => {
  const [reason, setReason] = useState("")
  const [error, setError] = useState<unknown>(undefined)
  const [busy, setBusy] = useState(false)
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.focus()
    setReason("")
    setError(undefined)
  }, [override.policy_override_id])

  const revoke = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      const trimmed = reason.trim()
      const answer = await call((c) =>
        c.policyBundle.revokeOverride({
          payload: { policy_override_id: override.policy_override_id, ...(trimmed === "" ? {} : { reason: trimmed }) }
        })
      )
      onDone(`Override ${answer.override.tool_id} ${answer.override.pattern} revoked.`)
    } catch (failure) {
      setError(failure)
    } finally {
      setBusy(false)
    }
  }

  return (
    <section class="panel" aria-labelledby="revoke-override-title">
      <h3 id="revoke-override-title" tabIndex={-1} ref={heading}>Revoke override {override.tool_id} <code>{override.pattern}</code></h3>
      <p class="hint">Tool calls it let through will ask for an approval again. Revoking is final.</p>
      <form onSubmit={revoke}>
        <label>
          Reason (optional){" "}
          <input value={reason} maxLength={1024} onInput={(e) => setReason((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <div class="actions">
          <button type="submit" class="danger" disabled={busy}>Revoke override</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
      <ErrorNote error={error} />
    </section>
  )
}
