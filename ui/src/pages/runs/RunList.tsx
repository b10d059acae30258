/**
 * The runs, newest first (`GET /workflow/runs`), filtered by status and by
 * key (exact, as the API filters), each linking to its detail. Shows the
 * newest 50 and "Show more" in steps of 50 up to the API's page of 500
 * (narrow the filters beyond that). Live: `run.*`, `step.updated`,
 * `attempt.updated` reload it.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { SelectField } from "../../components/SelectField.tsx"
import { RUN_EVENTS, RUN_STATUSES, type RunStatus } from "./types.ts"

const STEP = 50
const MAX = 500

/** The list. */
export const RunList = () => {
  const [status, setStatus] = useState<RunStatus | "">("")
  const [key, setKey] = useState("")
  const [limit, setLimit] = useState(STEP)
  const list = useResource(
    () =>
      call((c) =>
        c.workflow.list({
          query: { ...(status === "" ? {} : { status }), ...(key === "" ? {} : { key }), limit }
        })
      ),
    { events: RUN_EVENTS },
    [status, key, limit]
  )
  const runs = list.data?.runs ?? []
  const more = list.data?.next_cursor !== undefined
  const filterKey = (event: Event) => {
    event.preventDefault()
    const field = (event.currentTarget as HTMLFormElement).elements.namedItem("run-key") as HTMLInputElement
    setKey(field.value.trim())
    setLimit(STEP)
  }

  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <form class="toolbar" onSubmit={filterKey}>
        <SelectField
          label="Status"
          value={status}
          options={["", ...RUN_STATUSES]}
          text={(s) => s || "all"}
          onChange={(s) => {
            setStatus(s)
            setLimit(STEP)
          }}
        />
        <label>
          Key <input name="run-key" defaultValue={key} placeholder="e.g. cron:playbook-hello" size={28} />
        </label>
        <button type="submit">Filter</button>
        <span aria-live="polite" class="count">{list.data ? `${runs.length}${more ? "+" : ""} ${status || "runs"}` : ""}</span>
      </form>
      <ErrorNote error={list.error} />
      {list.data && runs.length === 0 ? <p class="empty">No {status === "" ? "" : `${status} `}runs{key ? ` for ${key}` : ""}.</p> : null}
      {runs.length > 0 ? (
        <table class="list" aria-label={`${status || "All"} runs`}>
          <thead>
            <tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Key / lane</th><th scope="col">Steps</th><th scope="col">Created</th><th scope="col">Finished / paused</th></tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.run_id}>
                <td><a href={`/ui/runs/${encodeURIComponent(run.run_id)}`}>{run.run_id}</a></td>
                <td><span class={`status status-${run.status}`}>{run.status}</span></td>
                <td><code>{run.key}</code> / {run.lane}</td>
                <td>{run.steps_count}</td>
                <td>{run.created_at}</td>
                <td>{run.finished_at ?? (run.paused_reason ? `paused: ${run.paused_reason}` : "—")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {more ? (
        <div class="pager">
          {limit < MAX
            ? <button type="button" onClick={() => setLimit(Math.min(MAX, limit + STEP))}>Show more</button>
            : <span class="hint">Showing the newest {MAX}; filter by status or key to see older runs.</span>}
        </div>
      ) : null}
    </section>
  )
}
