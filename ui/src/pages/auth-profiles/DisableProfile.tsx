/**
 * Disabling a profile (`POST /auth/profiles/:id/disable`) with an optional
 * reason (at most 500 characters): it is no longer selected for its provider;
 * pins to it stay but are skipped. Enable brings it back.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { AuthProfile } from "./types.ts"

/** The disable panel of `profile`. */
export const DisableProfile = ({ profile, onClose, onDone }: { profile: AuthProfile; onClose: () => void; onDone: (message: string) => void }) => {
  const [reason, setReason] = useState("")
  const [error, setError] = useState<unknown>(undefined)
  const [busy, setBusy] = useState(false)
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.focus()
    setReason("")
    setError(undefined)
  }, [profile.auth_profile_id])

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      const trimmed = reason.trim()
      await call((c) => c.authProfiles.disable({ params: { id: profile.auth_profile_id }, payload: trimmed === "" ? {} : { reason: trimmed } }))
      onDone(`Auth profile ${profile.auth_profile_id} disabled.`)
    } catch (failure) {
      setError(failure)
    } finally {
      setBusy(false)
    }
  }

  return (
    <section class="panel" aria-labelledby="disable-profile-title">
      <h2 id="disable-profile-title" tabIndex={-1} ref={heading}>Disable {profile.provider} profile <code>{profile.auth_profile_id}</code></h2>
      <form onSubmit={submit}>
        <label>
          Reason (optional){" "}
          <input value={reason} maxLength={500} onInput={(e) => setReason((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <div class="actions">
          <button type="submit" class="danger" disabled={busy}>Disable profile</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
      <ErrorNote error={error} />
    </section>
  )
}
