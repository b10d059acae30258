/**
 * Session pins (`GET /auth/pins`, `POST /auth/pins`): which profile a
 * session uses for a provider. Pin a session to one of the agent's active
 * profiles (replacing its pin for that provider), or clear a pin
 * (`profile_id: null`). No event announces pins: the section reloads after
 * its own actions and when the profiles change.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { AuthProfile, SessionProviderPin } from "./types.ts"

/** The pins section of `agent`; `profiles` are its profiles (the ones a pin may name are the active ones). */
export const Pins = ({ agent, profiles, mayChange, version }: {
  agent: string
  profiles: ReadonlyArray<AuthProfile>
  mayChange: boolean
  /** Changes when the profiles were reloaded (the pins are read again). */
  version: unknown
}) => {
  const pins = useResource(() => call((c) => c.authProfiles.listPins({ query: { agent_id: agent } })), {}, [agent, version])
  const [session, setSession] = useState("")
  const [profileId, setProfileId] = useState("")
  const action = useAction()
  const active = profiles.filter((p) => p.status === "active")

  const send = (sessionId: string, provider: string, profile: string | null) =>
    action.run(async () => {
      await call((c) => c.authProfiles.setPin({ payload: { agent_id: agent, session_id: sessionId, provider, profile_id: profile } }))
      pins.reload()
      return profile === null ? `Pin of session ${sessionId} for ${provider} cleared.` : `Session ${sessionId} pinned to ${profile} for ${provider}.`
    })
  const submit = async (event: Event) => {
    event.preventDefault()
    const profile = active.find((p) => p.auth_profile_id === profileId)
    if (profile === undefined) return action.setError(new Error("Choose an active profile to pin."))
    if (await send(session.trim(), profile.provider, profile.auth_profile_id)) setSession("")
  }
  const providerOf = (pin: SessionProviderPin) => profiles.find((p) => p.auth_profile_id === pin.auth_profile_id)

  const list = pins.data?.pins ?? []
  return (
    <section aria-labelledby="pins-title">
      <h2 id="pins-title">Session pins</h2>
      {action.done ? <p role="status" class="ok">{action.done}</p> : null}
      <ErrorNote error={pins.error ?? action.error} />
      {pins.data && list.length === 0 ? <p class="empty">No session of agent {agent} is pinned.</p> : null}
      {list.length > 0 ? (
        <table class="list" aria-label={`Session pins of agent ${agent}`}>
          <thead>
            <tr><th scope="col">Session</th><th scope="col">Provider</th><th scope="col">Profile</th><th scope="col">Pinned</th><th scope="col"><span class="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {list.map((pin) => (
              <tr key={`${pin.session_id}/${pin.provider}`}>
                <td>{pin.session_id}</td>
                <td>{pin.provider}</td>
                <td><code>{pin.auth_profile_id}</code>{providerOf(pin)?.status === "disabled" ? <span class="hint"> (disabled: skipped)</span> : null}</td>
                <td>{pin.pinned_at}</td>
                <td>
                  {mayChange ? (
                    <button type="button" disabled={action.busy} onClick={() => void send(pin.session_id, pin.provider, null)}>Clear<span class="sr-only"> pin of {pin.session_id} for {pin.provider}</span></button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {mayChange ? (
        <form onSubmit={submit} class="panel" aria-labelledby="pin-form-title">
          <h3 id="pin-form-title">Pin a session</h3>
          <label>Session id <input value={session} required maxLength={256} placeholder="thread-42" onInput={(e) => setSession((e.currentTarget as HTMLInputElement).value)} /></label>
          <label>
            Profile to pin{" "}
            <select value={profileId} required onChange={(e) => setProfileId((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">choose an active profile</option>
              {active.map((p) => <option key={p.auth_profile_id} value={p.auth_profile_id}>{p.provider} ({p.type}) {p.auth_profile_id}</option>)}
            </select>
          </label>
          <div class="actions"><button type="submit" disabled={action.busy || active.length === 0}>Pin session</button></div>
        </form>
      ) : null}
    </section>
  )
}
