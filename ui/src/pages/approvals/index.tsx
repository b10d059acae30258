/**
 * Approvals: pending first (oldest first, with prompt, kind, plan and expiry
 * countdown), a decision panel (approve once, approve always with the
 * suggested overrides, deny with a reason), resolved ones by status, and a
 * search over id, plan, prompt and kind. Live: `approval.requested` and
 * `approval.resolved` reload the list.
 */
import { useMemo, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { Countdown } from "../../components/Countdown.tsx"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { usePager } from "../../components/Pager.tsx"
import { SelectField } from "../../components/SelectField.tsx"
import { Decision } from "./Decision.tsx"
import type { Approval, ApprovalStatus } from "./types.ts"

const STATUSES: ReadonlyArray<ApprovalStatus> = ["pending", "approved", "denied", "expired", "cancelled"]

const matches = (approval: Approval, needle: string): boolean =>
  needle === "" ||
  [String(approval.id), approval.plan_id, approval.prompt, approval.kind].some((field) => field.toLowerCase().includes(needle))

/** The approvals page. */
export default function ApprovalsPage() {
  const [status, setStatus] = useState<ApprovalStatus>("pending")
  const [search, setSearch] = useState("")
  // The approval being decided, kept after it leaves the list (decided, expired) so its panel and answer stay.
  const [selected, setSelected] = useState<Approval | undefined>(undefined)
  const list = useResource(
    () => call((c) => c.approvals.list({ query: { status } })),
    { events: ["approval.requested", "approval.resolved"] },
    [status]
  )
  const approvals = useMemo(() => {
    const needle = search.trim().toLowerCase()
    return (list.data?.approvals ?? []).filter((approval) => matches(approval, needle))
  }, [list.data, search])
  const { slice, controls } = usePager(approvals)
  const current = selected === undefined ? undefined : approvals.find((approval) => approval.id === selected.id) ?? selected

  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      <div class="toolbar">
        <SelectField label="Status" value={status} options={STATUSES} onChange={setStatus} />
        <label>
          Search <input type="search" value={search} onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)} placeholder="id, plan, prompt, kind" />
        </label>
        <span aria-live="polite" class="count">{list.data ? `${approvals.length} ${status}` : ""}</span>
      </div>
      <ErrorNote error={list.error} />
      {current ? (
        <Decision
          approval={current}
          onClose={() => setSelected(undefined)}
          onDecided={(decided) => {
            setSelected(decided)
            list.reload()
          }}
        />
      ) : null}
      {list.data && approvals.length === 0 ? <p class="empty">No {status} approvals.</p> : null}
      {slice.length > 0 ? (
        <table class="list" aria-label={`${status} approvals`}>
          <thead>
            <tr><th scope="col">#</th><th scope="col">Kind</th><th scope="col">Prompt</th><th scope="col">Plan / step</th><th scope="col">{status === "pending" ? "Expires in" : "Resolution"}</th><th scope="col"><span class="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {slice.map((approval) => (
              <tr key={approval.id} aria-selected={approval.id === selected?.id}>
                <td>{approval.id}</td>
                <td>{approval.kind}</td>
                <td class="prompt">{approval.prompt}</td>
                <td><code>{approval.plan_id}</code> / {approval.step_index}</td>
                <td>
                  {approval.status === "pending"
                    ? <Countdown until={approval.expires_at} />
                    : `${approval.resolution?.decision ?? approval.status}${approval.resolution?.reason ? `: ${approval.resolution.reason}` : ""}`}
                </td>
                <td>
                  <button type="button" onClick={() => setSelected(approval)}>
                    {approval.status === "pending" ? "Decide" : "Details"}
                    <span class="sr-only"> approval {approval.id}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {controls}
    </section>
  )
}
