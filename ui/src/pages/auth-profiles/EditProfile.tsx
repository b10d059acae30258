/**
 * Changing a profile (`PATCH /auth/profiles/:id`): its type, the secret
 * handles (the whole set is replaced; each must exist and fit the type) and
 * its labels (replaced; empty removes them). Agent and provider are fixed
 * (pins and selection key on them): create another profile to change them.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { formatLabels, type HandleField, handlesFor, parseLabels, TypeAndHandles } from "./ProfileFields.tsx"
import type { AuthProfile, AuthProfileType, SecretHandle } from "./types.ts"

/** The edit panel of `profile`; `handles` are the agent's active secrets. */
export const EditProfile = ({ profile, handles, onClose, onDone }: {
  profile: AuthProfile
  handles: ReadonlyArray<SecretHandle>
  onClose: () => void
  onDone: (message: string) => void
}) => {
  const [type, setType] = useState<AuthProfileType>(profile.type)
  const [chosen, setChosen] = useState<Partial<Record<HandleField, string>>>(profile.secret_handles)
  const [labels, setLabels] = useState(formatLabels(profile.labels))
  const action = useAction()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.focus()
    setType(profile.type)
    setChosen(profile.secret_handles)
    setLabels(formatLabels(profile.labels))
    action.reset()
  }, [profile.auth_profile_id])

  const submit = action.submit(async () => {
    const payload = { type, secret_handles: handlesFor(type, chosen), labels: parseLabels(labels) }
    await call((c) => c.authProfiles.update({ params: { id: profile.auth_profile_id }, payload }))
    onDone(`Auth profile ${profile.auth_profile_id} updated.`)
  })

  return (
    <section class="panel" aria-labelledby="edit-profile-title">
      <h2 id="edit-profile-title" tabIndex={-1} ref={heading}>Edit {profile.provider} profile <code>{profile.auth_profile_id}</code></h2>
      <form onSubmit={submit}>
        <TypeAndHandles type={type} chosen={chosen} handles={handles} onType={setType} onChosen={setChosen} />
        <label>Labels <input value={labels} placeholder="team=ops, env=prod" onInput={(e) => setLabels((e.currentTarget as HTMLInputElement).value)} /></label>
        <div class="actions">
          <button type="submit" class="primary" disabled={action.busy}>Save profile</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
      <ErrorNote error={action.error} />
    </section>
  )
}
