/** Creates a work item in the board's scope (`work.create`; it starts in backlog). */
import { useState } from "preact/hooks"
import { request } from "../../app/live.ts"
import { useAction } from "../../app/useAction.ts"
import { SelectField } from "../../components/SelectField.tsx"
import { describeWorkError } from "./describeError.ts"
import type { WorkItemKind, WorkScope } from "./types.ts"

const KINDS: ReadonlyArray<WorkItemKind> = ["action", "initiative"]

/** The form; `onCreated` after the gateway stored the item. */
export const CreateItem = ({ scope, onCreated }: { scope: WorkScope; onCreated: () => void }) => {
  const [title, setTitle] = useState("")
  const [kind, setKind] = useState<WorkItemKind>("action")
  const [priority, setPriority] = useState("0")
  const action = useAction()
  const submit = action.submit(async () => {
    const answer = await request("work.create", { ...scope, item: { kind, title: title.trim(), priority: Number(priority) } })
    setTitle("")
    onCreated()
    return `Created “${answer.item.title}” in backlog.`
  })
  return (
    <form class="toolbar" aria-label="New work item" onSubmit={submit}>
      <label class="inline">
        Title{" "}
        <input value={title} required maxLength={500} size={32} onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <SelectField label="Kind" inline value={kind} options={KINDS} onChange={setKind} />
      <label class="inline">
        Priority{" "}
        <input type="number" min={0} step={1} value={priority} size={4}
          onInput={(e) => setPriority((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <button type="submit" class="primary" disabled={action.busy || title.trim() === ""}>Create</button>
      {action.done ? <span role="status" class="ok">{action.done}</span> : null}
      {action.error !== undefined ? <p role="alert" class="error">{describeWorkError(action.error)}</p> : null}
    </form>
  )
}
