/**
 * The agent's subagents (`subagent.list` over WebSocket; reference §5.3) in a
 * WorkScope (tenant and workspace, `default` each; the agent is the page's):
 * each with its execution profile, status (running, closing, closed, failed)
 * and last change, and, while the page is open, the last reply it sent
 * (`subagent.output`) or why it failed (`subagent.updated`'s `error`).
 * Reloads on `subagent.*`.
 */
import { useEffect, useState } from "preact/hooks"
import { onEvent, request } from "../../app/live.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"

/** A scope field committed on Enter or leaving it (`default` when emptied). */
const ScopeField = ({ label, value, onChange }: { label: string; value: string; onChange: (value: string) => void }) => {
  const [draft, setDraft] = useState(value)
  const commit = () => {
    const next = draft.trim() || "default"
    setDraft(next)
    if (next !== value) onChange(next)
  }
  return (
    <label>
      {label}{" "}
      <input value={draft} size={10} maxLength={200} onInput={(e) => setDraft((e.currentTarget as HTMLInputElement).value)}
        onChange={commit} onKeyDown={(e) => { if (e.key === "Enter") commit() }} />
    </label>
  )
}

/** The subagents of `agent`. */
export const SubagentsPanel = ({ agent }: { agent: string }) => {
  const [tenant, setTenant] = useState("default")
  const [workspace, setWorkspace] = useState("default")
  const list = useResource(
    () => request("subagent.list", { tenant_id: tenant, agent_id: agent, workspace_id: workspace, limit: 100 }),
    { events: ["subagent."] },
    [agent, tenant, workspace]
  )
  // The last reply or failure of each subagent, seen while the page is open.
  const [said, setSaid] = useState<ReadonlyMap<string, string>>(new Map())
  useEffect(() => onEvent((event) => {
    const p = event.payload as { subagent_id?: string; content?: string; error?: string; subagent?: { subagent_id: string } }
    const note = event.type === "subagent.output" && p.subagent_id !== undefined && p.content !== undefined
      ? [p.subagent_id, p.content] as const
      : event.type === "subagent.updated" && p.subagent !== undefined && p.error !== undefined
      ? [p.subagent.subagent_id, `failed: ${p.error}`] as const
      : undefined
    if (note !== undefined) setSaid((all) => new Map(all).set(note[0], note[1]))
  }), [])
  const subagents = list.data?.subagents ?? []
  return (
    <section class="panel" aria-labelledby="subagents-title">
      <h2 id="subagents-title">Subagents</h2>
      <div class="toolbar">
        <ScopeField label="Tenant" value={tenant} onChange={setTenant} />
        <ScopeField label="Workspace" value={workspace} onChange={setWorkspace} />
      </div>
      <ErrorNote error={list.error} />
      {list.data && subagents.length === 0 ? <p class="empty">No subagent of {agent} in this scope.</p> : null}
      {subagents.length > 0 ? (
        <table class="list" aria-label="Subagents">
          <thead><tr><th scope="col">Profile</th><th scope="col">Status</th><th scope="col">Last change</th></tr></thead>
          <tbody>
            {subagents.map((s) => (
              <tr key={s.subagent_id}>
                <td>
                  {s.execution_profile} <code class="sha" title={s.session_key}>{s.subagent_id.slice(0, 8)}</code>
                  {said.has(s.subagent_id) ? <p class="prompt">{said.get(s.subagent_id)}</p> : null}
                </td>
                <td><span class={`status status-${s.status}`}>{s.status}</span></td>
                <td>{s.closed_at ?? s.updated_at ?? s.created_at}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  )
}
