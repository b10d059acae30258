/**
 * Creating an auth profile (`POST /auth/profiles`): provider, type and the
 * secret handles that type needs, chosen among the agent's stored secrets
 * (`api_key`: an API key; `oauth`: an access token and optionally a refresh
 * token; `token`: an access token), and optional labels written
 * `key=value, key=value`. The profile holds handles only, never a value:
 * store the value on the Secrets page first.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { SecretHandle } from "../secrets/types.ts"
import type { AuthProfileSecretHandles, AuthProfileType } from "./types.ts"

const FIELDS: Record<AuthProfileType, ReadonlyArray<{ name: keyof AuthProfileSecretHandles; optional: boolean }>> = {
  api_key: [{ name: "api_key", optional: false }],
  oauth: [{ name: "access_token", optional: false }, { name: "refresh_token", optional: true }],
  token: [{ name: "access_token", optional: false }]
}

/** `key=value, key=value` as labels; a pair without `=` is an error naming it. */
export const parseLabels = (text: string): Record<string, string> => {
  const labels: Record<string, string> = {}
  for (const pair of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const at = pair.indexOf("=")
    if (at <= 0) throw new Error(`labels: "${pair}" is not key=value`)
    labels[pair.slice(0, at).trim()] = pair.slice(at + 1).trim()
  }
  return labels
}

/** The create form for `agent`; `handles` are its active secrets. */
export const CreateProfile = ({ agent, handles, onCreated }: {
  agent: string
  handles: ReadonlyArray<SecretHandle>
  onCreated: (message: string) => void
}) => {
  const [provider, setProvider] = useState("")
  const [type, setType] = useState<AuthProfileType>("api_key")
  const [chosen, setChosen] = useState<Partial<Record<keyof AuthProfileSecretHandles, string>>>({})
  const [labels, setLabels] = useState("")
  const [error, setError] = useState<unknown>(undefined)
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      const secret_handles: Record<string, string> = {}
      for (const { name } of FIELDS[type]) if (chosen[name]) secret_handles[name] = chosen[name]
      const parsed = parseLabels(labels)
      const answer = await call((c) =>
        c.authProfiles.create({
          payload: {
            agent_id: agent,
            provider: provider.trim(),
            type,
            secret_handles,
            ...(Object.keys(parsed).length > 0 ? { labels: parsed } : {})
          }
        })
      )
      setProvider("")
      setChosen({})
      setLabels("")
      onCreated(`Auth profile ${answer.profile.auth_profile_id} (${answer.profile.provider}, ${answer.profile.type}) created.`)
    } catch (failure) {
      setError(failure)
    } finally {
      setBusy(false)
    }
  }

  return (
    <section class="panel" aria-labelledby="create-profile-title">
      <h2 id="create-profile-title">Create an auth profile</h2>
      {handles.length === 0 ? <p class="hint">Agent {agent} has no stored secrets: store the credential on the <a href="/ui/secrets">Secrets</a> page first.</p> : null}
      <form onSubmit={submit}>
        <label>Provider <input value={provider} required maxLength={64} placeholder="openai" onInput={(e) => setProvider((e.currentTarget as HTMLInputElement).value)} /></label>
        <label>
          Type{" "}
          <select value={type} onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value as AuthProfileType)}>
            <option value="api_key">api_key</option>
            <option value="oauth">oauth</option>
            <option value="token">token</option>
          </select>
        </label>
        {FIELDS[type].map(({ name, optional }) => (
          <label key={name}>
            Secret for {name}{optional ? " (optional)" : ""}{" "}
            <select value={chosen[name] ?? ""} required={!optional} onChange={(e) => setChosen({ ...chosen, [name]: (e.currentTarget as HTMLSelectElement).value })}>
              <option value="">{optional ? "none" : "choose a secret"}</option>
              {handles.map((h) => <option key={h.handle_id} value={h.handle_id}>{h.scope} ({h.handle_id})</option>)}
            </select>
          </label>
        ))}
        <label>Labels (optional) <input value={labels} placeholder="team=ops, env=prod" onInput={(e) => setLabels((e.currentTarget as HTMLInputElement).value)} /></label>
        <div class="actions"><button type="submit" class="primary" disabled={busy}>Create profile</button></div>
      </form>
      <ErrorNote error={error} />
    </section>
  )
}
