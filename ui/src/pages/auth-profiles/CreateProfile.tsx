/**
 * Creating an auth profile (`POST /auth/profiles`): provider, type and the
 * secret handles that type needs, chosen among the agent's stored secrets,
 * and optional labels. The profile holds handles only, never a value: store
 * the value on the Secrets page first.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { type HandleField, handlesFor, parseLabels, TypeAndHandles } from "./ProfileFields.tsx"
import type { AuthProfileType, SecretHandle } from "./types.ts"

/** The create form for `agent`; `handles` are its active secrets. */
export const CreateProfile = ({ agent, handles, onCreated }: {
  agent: string
  handles: ReadonlyArray<SecretHandle>
  onCreated: (message: string) => void
}) => {
  const [provider, setProvider] = useState("")
  const [type, setType] = useState<AuthProfileType>("api_key")
  const [chosen, setChosen] = useState<Partial<Record<HandleField, string>>>({})
  const [labels, setLabels] = useState("")
  const action = useAction()

  const submit = action.submit(async () => {
    const parsed = parseLabels(labels)
    const answer = await call((c) =>
      c.authProfiles.create({
        payload: {
          agent_id: agent,
          provider: provider.trim(),
          type,
          secret_handles: handlesFor(type, chosen),
          ...(Object.keys(parsed).length > 0 ? { labels: parsed } : {})
        }
      })
    )
    setProvider("")
    setChosen({})
    setLabels("")
    onCreated(`Auth profile ${answer.profile.auth_profile_id} (${answer.profile.provider}, ${answer.profile.type}) created.`)
  })

  return (
    <section class="panel" aria-labelledby="create-profile-title">
      <h2 id="create-profile-title">Create an auth profile</h2>
      {handles.length === 0 ? <p class="hint">Agent {agent} has no stored secrets: store the credential on the <a href="/ui/secrets">Secrets</a> page first.</p> : null}
      <form onSubmit={submit}>
        <label>Provider <input value={provider} required maxLength={64} placeholder="openai" onInput={(e) => setProvider((e.currentTarget as HTMLInputElement).value)} /></label>
        <TypeAndHandles type={type} chosen={chosen} handles={handles} onType={setType} onChosen={setChosen} />
        <label>Labels (optional) <input value={labels} placeholder="team=ops, env=prod" onInput={(e) => setLabels((e.currentTarget as HTMLInputElement).value)} /></label>
        <div class="actions"><button type="submit" class="primary" disabled={action.busy}>Create profile</button></div>
      </form>
      <ErrorNote error={action.error} />
    </section>
  )
}
