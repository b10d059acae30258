/**
 * Secrets: the agent's handles (never values) with the auth profiles that
 * name each one; store a new value, rotate (new handle, the profiles follow)
 * and revoke. Value fields are write-only. No event announces secret changes:
 * the page reloads after its own actions (and polls while the live
 * connection is down).
 */
import { useState } from "preact/hooks"
import { useCan } from "../../app/session.ts"
import { useResource } from "../../app/useResource.ts"
import { AgentField, DEFAULT_AGENT_ID } from "../../components/AgentField.tsx"
import { loadHandles, loadProfiles, usersOf } from "../../components/agentSecrets.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { type HandleAction, HandleActions } from "./HandleActions.tsx"
import { StoreSecret } from "./StoreSecret.tsx"

/** The secrets page. */
export default function SecretsPage() {
  const mayChange = useCan("operator.admin")
  const [agent, setAgent] = useState(DEFAULT_AGENT_ID)
  const [selected, setSelected] = useState<{ id: string; action: HandleAction } | undefined>(undefined)
  const [done, setDone] = useState<string | undefined>(undefined)
  const data = useResource(
    () => Promise.all([loadHandles(agent), loadProfiles(agent)]).then(([handles, profiles]) => ({ handles, profiles })),
    {},
    [agent]
  )
  const handles = data.data?.handles ?? []
  const profiles = data.data?.profiles
  const current = handles.find((h) => h.handle_id === selected?.id)
  const finished = (message: string) => {
    setDone(message)
    setSelected(undefined)
    data.reload()
  }

  return (
    <section aria-labelledby="secrets-title">
      <h1 id="secrets-title">Secrets</h1>
      <div class="toolbar">
        <AgentField agent={agent} onChange={setAgent} />
        <span aria-live="polite" class="count">{data.data ? `${handles.length} active handle(s)` : ""}</span>
      </div>
      {done ? <p role="status" class="ok">{done}</p> : null}
      <ErrorNote error={data.error} />
      {current && selected ? (
        <HandleActions
          handle={current}
          action={selected.action}
          users={profiles === undefined ? undefined : usersOf(profiles, current.handle_id).map((u) => u.profile)}
          onClose={() => setSelected(undefined)}
          onDone={finished}
        />
      ) : null}
      {data.data && handles.length === 0 ? <p class="empty">No secrets stored for agent {agent}.</p> : null}
      {handles.length > 0 ? (
        <table class="list" aria-label={`Secret handles of agent ${agent}`}>
          <thead>
            <tr>
              <th scope="col">Scope</th><th scope="col">Handle</th><th scope="col">Provider</th><th scope="col">Stored</th>
              <th scope="col">Used by auth profiles</th><th scope="col"><span class="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {handles.map((h) => {
              const users = profiles === undefined ? [] : usersOf(profiles, h.handle_id)
              return (
                <tr key={h.handle_id} aria-selected={h.handle_id === selected?.id}>
                  <td>{h.scope}</td>
                  <td><code>{h.handle_id}</code></td>
                  <td>{h.provider}</td>
                  <td>{h.created_at}</td>
                  <td>
                    {profiles === undefined ? <span class="hint">auth profiles off</span> : users.length === 0 ? "—" : (
                      <ul class="plain">
                        {users.map(({ profile, field }) => (
                          <li key={`${profile.auth_profile_id}-${field}`}>
                            <a href="/ui/auth-profiles">{profile.provider}</a> {field} ({profile.status})
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td>
                    {mayChange ? (
                      <div class="actions">
                        <button type="button" onClick={() => setSelected({ id: h.handle_id, action: "rotate" })}>Rotate<span class="sr-only"> secret {h.scope}</span></button>
                        <button type="button" class="danger" onClick={() => setSelected({ id: h.handle_id, action: "revoke" })}>Revoke<span class="sr-only"> secret {h.scope}</span></button>
                      </div>
                    ) : null}
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      ) : null}
      {mayChange ? <StoreSecret agent={agent} onStored={(handle) => finished(`Stored secret ${handle.scope} as handle ${handle.handle_id}.`)} /> : null}
    </section>
  )
}
