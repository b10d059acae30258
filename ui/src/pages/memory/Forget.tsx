/**
 * Forget (`memory.forget`): the items one selector matches (an id, a tag, a
 * fact key, a provenance source kind) are deleted, each leaving a tombstone.
 * The operator types `FORGET` to confirm; the button stays disabled until the
 * field says exactly that (the gateway checks it again).
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { request } from "../../app/live.ts"
import { useAction } from "../../app/useAction.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { SelectField } from "../../components/SelectField.tsx"
import type { MemoryForgetSelector } from "./types.ts"

/** What to forget: a selector kind and its value. */
export interface ForgetTarget {
  readonly kind: MemoryForgetSelector["kind"]
  readonly value: string
}

const KINDS: ReadonlyArray<ForgetTarget["kind"]> = ["id", "tag", "key", "provenance"]
const KIND_TEXT: Record<ForgetTarget["kind"], string> = {
  id: "one item by id",
  tag: "items with the tag",
  key: "facts with the key",
  provenance: "items from the source kind"
}
const CONFIRM = "FORGET"

/** The selector for `target`. */
const selectorOf = ({ kind, value }: ForgetTarget): MemoryForgetSelector => {
  switch (kind) {
    case "id":
      return { kind, memory_item_id: value }
    case "tag":
      return { kind, tag: value }
    case "key":
      return { kind, key: value }
    case "provenance":
      return { kind, source_kind: value as Extract<MemoryForgetSelector, { kind: "provenance" }>["source_kind"] }
  }
}

/** The forget panel for `agent`, prefilled with `target`; `onDone` gets the confirmation message. */
export const Forget = ({ agent, target, onClose, onDone }: {
  agent: string
  target: ForgetTarget
  onClose: () => void
  onDone: (message: string) => void
}) => {
  const [what, setWhat] = useState<ForgetTarget>(target)
  const [confirm, setConfirm] = useState("")
  const action = useAction()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    setWhat(target)
    setConfirm("")
    action.reset()
    heading.current?.focus()
  }, [target.kind, target.value])

  const submit = action.submit(async () => {
    const answer = await request("memory.forget", { v: 1, confirm, agent_id: agent, selectors: [selectorOf({ ...what, value: what.value.trim() })] })
    onDone(`Forgot ${answer.deleted_count} item${answer.deleted_count === 1 ? "" : "s"} (tombstones kept).`)
  })

  return (
    <section class="panel" aria-labelledby="memory-forget-title">
      <h2 id="memory-forget-title" tabIndex={-1} ref={heading}>Forget memory</h2>
      <p class="hint">Deletes the matching items of agent {agent}; each leaves a tombstone. This cannot be undone.</p>
      <form onSubmit={submit}>
        <SelectField label="Forget" value={what.kind} options={KINDS} text={(k) => KIND_TEXT[k]}
          onChange={(kind) => setWhat({ kind, value: kind === what.kind ? what.value : "" })} />
        <label>
          {what.kind === "id" ? "Item id" : what.kind === "tag" ? "Tag" : what.kind === "key" ? "Fact key" : "Source kind"}{" "}
          <input value={what.value} required maxLength={512} size={40}
            placeholder={what.kind === "provenance" ? "user, operator, tool, system or import" : undefined}
            onInput={(e) => setWhat({ ...what, value: (e.currentTarget as HTMLInputElement).value })} />
        </label>
        <label>
          Type {CONFIRM} to confirm{" "}
          <input value={confirm} autoComplete="off" onInput={(e) => setConfirm((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <div class="actions">
          <button type="submit" class="danger" disabled={action.busy || confirm !== CONFIRM || what.value.trim() === ""}>Forget</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
      <ErrorNote error={action.error} />
    </section>
  )
}
