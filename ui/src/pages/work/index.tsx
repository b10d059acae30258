/**
 * Work board (issue 24 §6): a scope's work items (`work.list`) in one column
 * per status; each card offers only the moves the state machine allows (the
 * server's table, types.ts) through `work.transition`; the doing column shows
 * the WIP limit ("doing 2/2"); a refusal (`wip_limit_exceeded`,
 * `invalid_transition`) is explained above the board. Create items in
 * backlog; reloads on `work.*`.
 */
import { useState } from "preact/hooks"
import { request } from "../../app/live.ts"
import { useAction } from "../../app/useAction.ts"
import { useResource } from "../../app/useResource.ts"
import { useCan } from "../../app/session.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { CreateItem } from "./CreateItem.tsx"
import { describeWorkError } from "./describeError.ts"
import { ScopeFields } from "./ScopeFields.tsx"
import { DEFAULT_SCOPE, STATUSES, TRANSITIONS, WIP_LIMIT, WORK_EVENTS, type WorkItem, type WorkItemStatus, type WorkScope } from "./types.ts"

/** The work board page. */
export default function WorkPage() {
  const canWrite = useCan("operator.write")
  const [scope, setScope] = useState<WorkScope>(DEFAULT_SCOPE)
  const board = useResource(
    () => request("work.list", { ...scope, limit: 500 }),
    { events: WORK_EVENTS },
    [scope.tenant_id, scope.agent_id, scope.workspace_id]
  )
  const move = useAction()
  const items = board.data?.items ?? []
  const byStatus = (status: WorkItemStatus) => items.filter((item) => item.status === status)
  const doing = byStatus("doing").length

  const transition = (item: WorkItem, status: WorkItemStatus) =>
    move.run(async () => {
      try {
        const answer = await request("work.transition", { ...scope, work_item_id: item.work_item_id, status })
        return `Moved “${answer.item.title}” to ${answer.item.status}.`
      } finally {
        board.reload()
      }
    })

  return (
    <section aria-labelledby="work-title">
      <h1 id="work-title">Work board</h1>
      <ScopeFields scope={scope} onChange={(next) => { move.reset(); setScope(next) }} />
      {canWrite ? <CreateItem scope={scope} onCreated={board.reload} /> : null}
      <div class="toolbar">
        <span aria-live="polite" class="count">
          {board.data ? `${items.length} items; doing ${doing}/${WIP_LIMIT}${board.data.next_cursor ? " (the first 500 shown)" : ""}` : ""}
        </span>
      </div>
      <div aria-live="polite">
        {move.done ? <p role="status" class="ok">{move.done}</p> : null}
      </div>
      {move.error !== undefined ? <p role="alert" class="error">{describeWorkError(move.error)}</p> : null}
      <ErrorNote error={board.error} />
      <div class="board">
        {STATUSES.map((status) => {
          const cards = byStatus(status)
          return (
            <section key={status} class="column" aria-labelledby={`column-${status}`}>
              <h2 id={`column-${status}`}>
                {status === "doing" ? `doing ${cards.length}/${WIP_LIMIT}` : `${status} (${cards.length})`}
              </h2>
              {cards.length === 0 ? <p class="empty">None.</p> : (
                <ul class="plain">
                  {cards.map((item) => (
                    <li key={item.work_item_id} class="card">
                      <p class="card-title">{item.title}</p>
                      <p class="hint">{item.kind}, priority {item.priority}</p>
                      {canWrite && TRANSITIONS[item.status].length > 0 ? (
                        <div class="actions">
                          {TRANSITIONS[item.status].map((to) => (
                            <button key={to} type="button" disabled={move.busy} class={to === "cancelled" || to === "failed" ? "danger" : undefined}
                              onClick={() => transition(item, to)}>
                              → {to}<span class="sr-only"> (move {item.title})</span>
                            </button>
                          ))}
                        </div>
                      ) : null}
                    </li>
                  ))}
                </ul>
              )}
            </section>
          )
        })}
      </div>
    </section>
  )
}
