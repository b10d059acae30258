/**
 * Export (`memory.export {filter, include_tombstones}` → `{artifact_id}`):
 * the gateway stores the items of the current filter as an artifact; the
 * browser then downloads it from `GET /memory/exports/<artifact_id>`
 * (operator.read, an attachment, the session cookie sent). `memory.export`
 * needs operator.write: the page shows the button only with it.
 */
import { useState } from "preact/hooks"
import { request } from "../../app/live.ts"
import { useAction } from "../../app/useAction.ts"
import { downloadUrl } from "../../components/download.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { MemoryFilter } from "./types.ts"

/** The export button (with "include tombstones") for `filter`. */
export const Export = ({ filter }: { filter: MemoryFilter }) => {
  const [tombstones, setTombstones] = useState(false)
  const action = useAction()
  const run = () =>
    action.run(async () => {
      const answer = await request("memory.export", { v: 1, filter, include_tombstones: tombstones })
      downloadUrl(`/memory/exports/${encodeURIComponent(answer.artifact_id)}`, `svc-memory-export-${answer.artifact_id}.json`)
      return `Exported as ${answer.artifact_id}.`
    })
  return (
    <>
      <label class="inline">
        <input type="checkbox" checked={tombstones} onChange={(e) => setTombstones((e.currentTarget as HTMLInputElement).checked)} />
        {" "}Include tombstones
      </label>
      <button type="button" disabled={action.busy} onClick={run}>{action.busy ? "Exporting…" : "Export"}</button>
      {action.done ? <span role="status" class="ok">{action.done}</span> : null}
      <ErrorNote error={action.error} />
    </>
  )
}
