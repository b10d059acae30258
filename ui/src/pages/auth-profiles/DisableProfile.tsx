/**
 * Disabling a profile (`POST /auth/profiles/:id/disable`) with an optional
 * reason (at most 500 characters): it is no longer selected for its provider;
 * pins to it stay but are skipped. Enable brings it back.
 */
import { call } from "../../app/api.ts"
import { ReasonPanel } from "../../components/ReasonPanel.tsx"
import type { AuthProfile } from "./types.ts"

/** The disable panel of `profile`. */
export const DisableProfile = ({ profile, onClose, onDone }: { profile: AuthProfile; onClose: () => void; onDone: (message: string) => void }) => (
  <ReasonPanel
    id="disable-profile-title"
    itemKey={profile.auth_profile_id}
    level={2}
    title={<>Disable {profile.provider} profile <code>{profile.auth_profile_id}</code></>}
    maxLength={500}
    confirm="Disable profile"
    onConfirm={async (reason) => {
      await call((c) => c.authProfiles.disable({ params: { id: profile.auth_profile_id }, payload: reason === undefined ? {} : { reason } }))
      return `Auth profile ${profile.auth_profile_id} disabled.`
    }}
    onClose={onClose}
    onDone={onDone}
  />
)
