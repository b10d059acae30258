/**
 * One memory item with every field (`memory.get`): the common ones, its
 * kind's (a fact's value as JSON), and its provenance. Focused when opened.
 */
import { Fragment } from "preact"
import { useEffect, useRef } from "preact/hooks"
import { request } from "../../app/live.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { Json } from "../../components/Json.tsx"
import { labelOf } from "./Results.tsx"
import { MEMORY_EVENTS, type MemoryItem } from "./types.ts"

/** The kind-specific fields of `item`, as label and value. */
const kindFields = (item: MemoryItem): Array<readonly [string, string | undefined]> => {
  switch (item.kind) {
    case "fact":
      return [["Key", item.key], ["Observed", item.observed_at], ["Confidence", String(item.confidence)]]
    case "note":
      return [["Title", item.title], ["Body", item.body_md]]
    case "procedure":
      return [["Title", item.title], ["Body", item.body_md], ["Confidence", item.confidence === undefined ? undefined : String(item.confidence)]]
    case "episode":
      return [["Occurred", item.occurred_at], ["Summary", item.summary_md]]
  }
}

/** The panel of item `id` of `agent`; `onForget` (absent without operator.write) opens the forget panel for it. */
export const ItemView = ({ agent, id, onClose, onForget }: {
  agent: string
  id: string
  onClose: () => void
  onForget: (() => void) | undefined
}) => {
  const answer = useResource(() => request("memory.get", { v: 1, memory_item_id: id, agent_id: agent }), { events: MEMORY_EVENTS }, [agent, id])
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [id])
  const item = answer.data?.item
  return (
    <section class="panel" aria-labelledby="memory-item-title">
      <h2 id="memory-item-title" tabIndex={-1} ref={heading}>{item ? `${item.kind}: ${labelOf(item)}` : "Memory item"}</h2>
      <ErrorNote error={answer.error} />
      {item ? (
        <>
          <dl class="facts">
            <dt>Id</dt><dd><code>{item.memory_item_id}</code></dd>
            <dt>Agent</dt><dd>{item.agent_id}</dd>
            <dt>Kind</dt><dd>{item.kind}</dd>
            <dt>Sensitivity</dt><dd>{item.sensitivity}</dd>
            <dt>Tags</dt><dd>{item.tags.length === 0 ? "none" : item.tags.join(", ")}</dd>
            <dt>Created</dt><dd>{item.created_at}</dd>
            <dt>Updated</dt><dd>{item.updated_at ?? "—"}</dd>
            {kindFields(item).map(([label, value]) => value === undefined ? null : <Fragment key={label}><dt>{label}</dt><dd class="prompt">{value}</dd></Fragment>)}
          </dl>
          {item.kind === "fact" ? <><p class="caption">Value</p><Json value={item.value} label="Fact value" /></> : null}
          <p class="caption">Provenance</p>
          <Json value={item.provenance} label="Provenance" />
        </>
      ) : null}
      <div class="actions">
        {item && onForget ? <button type="button" class="danger" onClick={onForget}>Forget this item</button> : null}
        <button type="button" onClick={onClose}>Close</button>
      </div>
    </section>
  )
}
