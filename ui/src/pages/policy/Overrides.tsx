/**
 * The overrides section: the list (`GET /policy/overrides`, newest first)
 * filtered by status (active, revoked, expired or all), agent and tool, 100
 * per page with "Show more" following `next_cursor`; the create form; a
 * revoke panel per active override. Live: `policy_override.` events
 * (created, revoked, expired) reload the list.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useCan } from "../../app/session.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { SelectField } from "../../components/SelectField.tsx"
import { CreateOverride } from "./CreateOverride.tsx"
import { RevokeOverride } from "./RevokeOverride.tsx"
import type { PolicyOverride, PolicyOverrideStatus } from "./types.ts"

const STATUSES: ReadonlyArray<PolicyOverrideStatus | "all"> = ["active", "revoked", "expired", "all"]

interface Filters {
  readonly status: PolicyOverrideStatus | "all"
  readonly agent: string
  readonly tool: string
}

/** Reads `pages` pages of overrides matching `filters`; `more` when another page remains. */
const loadOverrides = async (filters: Filters, pages: number): Promise<{ overrides: Array<PolicyOverride>; more: boolean }> => {
  const overrides: Array<PolicyOverride> = []
  let cursor: string | undefined
  for (let page = 0; page < pages; page++) {
    const answer = await call((c) =>
      c.policyBundle.listOverrides({
        query: {
          ...(filters.status === "all" ? {} : { status: filters.status }),
          ...(filters.agent.trim() === "" ? {} : { agent_id: filters.agent.trim() }),
          ...(filters.tool.trim() === "" ? {} : { tool_id: filters.tool.trim() }),
          ...(cursor === undefined ? {} : { cursor })
        }
      })
    )
    overrides.push(...answer.overrides)
    cursor = answer.next_cursor
    if (cursor === undefined) break
  }
  return { overrides, more: cursor !== undefined }
}

const statusText = (o: PolicyOverride): string =>
  o.status === "revoked"
    ? `revoked ${o.revoked_at ?? ""}${o.revoked_reason ? `: ${o.revoked_reason}` : ""}`
    : o.status

/** The overrides section of the policy page. */
export const Overrides = () => {
  const mayChange = useCan("operator.admin")
  const [filters, setFilters] = useState<Filters>({ status: "active", agent: "", tool: "" })
  const [pages, setPages] = useState(1)
  const [revoking, setRevoking] = useState<string | undefined>(undefined)
  const [done, setDone] = useState<string | undefined>(undefined)
  const list = useResource(
    () => loadOverrides(filters, pages),
    { events: ["policy_override."] },
    [filters.status, filters.agent, filters.tool, pages]
  )
  const overrides = list.data?.overrides ?? []
  const current = overrides.find((o) => o.policy_override_id === revoking && o.status === "active")
  const filter = (patch: Partial<Filters>) => {
    setFilters({ ...filters, ...patch })
    setPages(1)
  }
  const finished = (message: string) => {
    setDone(message)
    setRevoking(undefined)
    list.reload()
  }

  return (
    <section aria-labelledby="overrides-title">
      <h2 id="overrides-title">Overrides</h2>
      <div class="toolbar">
        <SelectField label="Status" value={filters.status} options={STATUSES} onChange={(status) => filter({ status })} />
        <label>Agent filter <input value={filters.agent} placeholder="any" onChange={(e) => filter({ agent: (e.currentTarget as HTMLInputElement).value })} /></label>
        <label>Tool filter <input value={filters.tool} placeholder="any" onChange={(e) => filter({ tool: (e.currentTarget as HTMLInputElement).value })} /></label>
        <span aria-live="polite" class="count">{list.data ? `${overrides.length}${list.data.more ? "+" : ""} ${filters.status === "all" ? "" : filters.status} override(s)` : ""}</span>
      </div>
      {done ? <p role="status" class="ok">{done}</p> : null}
      <ErrorNote error={list.error} />
      {current ? <RevokeOverride override={current} onClose={() => setRevoking(undefined)} onDone={finished} /> : null}
      {list.data && overrides.length === 0 ? <p class="empty">No {filters.status === "all" ? "" : `${filters.status} `}overrides.</p> : null}
      {overrides.length > 0 ? (
        <table class="list" aria-label="Policy overrides">
          <thead>
            <tr>
              <th scope="col">Tool</th><th scope="col">Pattern</th><th scope="col">Agent / workspace</th>
              <th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Status</th>
              <th scope="col"><span class="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {overrides.map((o) => (
              <tr key={o.policy_override_id} aria-selected={o.policy_override_id === revoking}>
                <td>{o.tool_id}</td>
                <td><code>{o.pattern}</code></td>
                <td>{o.agent_id}{o.workspace_id ? ` / ${o.workspace_id}` : ""}</td>
                <td>{o.created_at}{o.created_from_approval_id ? <> (approval <a href="/ui/approvals">{o.created_from_approval_id}</a>)</> : null}</td>
                <td>{o.expires_at ?? "never"}</td>
                <td>{statusText(o)}</td>
                <td>
                  {o.status === "active" && mayChange ? (
                    <button type="button" class="danger" onClick={() => setRevoking(o.policy_override_id)}>
                      Revoke<span class="sr-only"> override {o.tool_id} {o.pattern}</span>
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {list.data?.more ? <div class="actions"><button type="button" onClick={() => setPages(pages + 1)}>Show more</button></div> : null}
      {mayChange ? <CreateOverride onCreated={finished} /> : null}
    </section>
  )
}
