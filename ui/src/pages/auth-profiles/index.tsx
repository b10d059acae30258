/**
 * Auth profiles: the agent's provider credentials, each naming secret
 * handles (never values) shown with the secret they point at, so a rotation
 * on the Secrets page shows here as the new handle; filter by provider and
 * status; create, edit (type, handles, labels), disable with a reason,
 * enable; and the agent's session
 * pins. No event announces profile changes: the page reloads after its own
 * actions (and polls while the live connection is down). With auth profiles
 * switched off (`SVC_AUTH_PROFILES=off`) the routes answer 404 and the page
 * says so.
 */
import { useMemo, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useCan } from "../../app/session.ts"
import { useResource } from "../../app/useResource.ts"
import { AgentField, DEFAULT_AGENT_ID } from "../../components/AgentField.tsx"
import { handlesOf, loadHandles, loadProfiles } from "../../components/agentSecrets.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { SelectField } from "../../components/SelectField.tsx"
import { CreateProfile } from "./CreateProfile.tsx"
import { DisableProfile } from "./DisableProfile.tsx"
import { EditProfile } from "./EditProfile.tsx"
import { HandleRef } from "./HandleRef.tsx"
import { Pins } from "./Pins.tsx"
import { formatLabels } from "./ProfileFields.tsx"
import type { AuthProfile } from "./types.ts"

const STATUSES: ReadonlyArray<"all" | AuthProfile["status"]> = ["all", "active", "disabled"]

/** The auth profiles page. */
export default function AuthProfilesPage() {
  const mayChange = useCan("operator.admin")
  const [agent, setAgent] = useState(DEFAULT_AGENT_ID)
  const [provider, setProvider] = useState("")
  const [status, setStatus] = useState<"all" | AuthProfile["status"]>("all")
  const [selected, setSelected] = useState<{ id: string; action: "edit" | "disable" } | undefined>(undefined)
  const [done, setDone] = useState<string | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const data = useResource(
    () => Promise.all([loadProfiles(agent), loadHandles(agent)]).then(([profiles, handles]) => ({ profiles, handles })),
    {},
    [agent]
  )
  const profiles = data.data?.profiles
  const shown = useMemo(() => {
    const needle = provider.trim().toLowerCase()
    return (profiles ?? []).filter((p) => (status === "all" || p.status === status) && (needle === "" || p.provider.toLowerCase().includes(needle)))
  }, [profiles, provider, status])
  const current = shown.find((p) => p.auth_profile_id === selected?.id)
  const finished = (message: string) => {
    setDone(message)
    setSelected(undefined)
    data.reload()
  }
  const enable = async (profile: AuthProfile) => {
    setError(undefined)
    try {
      await call((c) => c.authProfiles.enable({ params: { id: profile.auth_profile_id }, payload: {} }))
      finished(`Auth profile ${profile.auth_profile_id} enabled.`)
    } catch (failure) {
      setError(failure)
    }
  }

  return (
    <section aria-labelledby="auth-profiles-title">
      <h1 id="auth-profiles-title">Auth profiles</h1>
      <div class="toolbar">
        <AgentField agent={agent} onChange={setAgent} />
        <label>Provider filter <input type="search" value={provider} placeholder="any" onInput={(e) => setProvider((e.currentTarget as HTMLInputElement).value)} /></label>
        <SelectField label="Status" value={status} options={STATUSES} onChange={setStatus} />
        <span aria-live="polite" class="count">{profiles ? `${shown.length} of ${profiles.length} profile(s)` : ""}</span>
      </div>
      {done ? <p role="status" class="ok">{done}</p> : null}
      <ErrorNote error={data.error ?? error} />
      {data.data && profiles === undefined ? (
        <p class="empty">Auth profiles are switched off on this gateway (<code>SVC_AUTH_PROFILES=off</code>): its routes answer 404.</p>
      ) : null}
      {current && selected?.action === "disable" && current.status === "active"
        ? <DisableProfile profile={current} onClose={() => setSelected(undefined)} onDone={finished} />
        : null}
      {current && selected?.action === "edit"
        ? <EditProfile profile={current} handles={data.data?.handles ?? []} onClose={() => setSelected(undefined)} onDone={finished} />
        : null}
      {profiles && shown.length === 0 ? <p class="empty">No matching auth profiles for agent {agent}.</p> : null}
      {shown.length > 0 ? (
        <table class="list" aria-label={`Auth profiles of agent ${agent}`}>
          <thead>
            <tr>
              <th scope="col">Provider</th><th scope="col">Type</th><th scope="col">Secrets</th><th scope="col">Labels</th>
              <th scope="col">Status</th><th scope="col">Updated</th><th scope="col"><span class="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {shown.map((p) => (
              <tr key={p.auth_profile_id} aria-selected={p.auth_profile_id === selected?.id}>
                <td>{p.provider}<br /><code class="hint">{p.auth_profile_id}</code></td>
                <td>{p.type}</td>
                <td>
                  <ul class="plain">
                    {handlesOf(p).map(([field, id]) => <HandleRef key={field} field={field} id={id} handles={data.data?.handles} />)}
                  </ul>
                </td>
                <td>{formatLabels(p.labels) || "—"}</td>
                <td>{p.status}{p.disabled_reason ? `: ${p.disabled_reason}` : ""}</td>
                <td>{p.updated_at}</td>
                <td>
                  {mayChange ? (
                    <div class="actions">
                      <button type="button" onClick={() => setSelected({ id: p.auth_profile_id, action: "edit" })}>Edit<span class="sr-only"> profile {p.auth_profile_id}</span></button>
                      {p.status === "active" ? (
                        <button type="button" class="danger" onClick={() => setSelected({ id: p.auth_profile_id, action: "disable" })}>Disable<span class="sr-only"> profile {p.auth_profile_id}</span></button>
                      ) : (
                        <button type="button" onClick={() => void enable(p)}>Enable<span class="sr-only"> profile {p.auth_profile_id}</span></button>
                      )}
                    </div>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {profiles && mayChange ? <CreateProfile agent={agent} handles={data.data?.handles ?? []} onCreated={finished} /> : null}
      {profiles ? <Pins agent={agent} profiles={profiles} mayChange={mayChange} version={data.data} /> : null}
    </section>
  )
}
