/**
 * Memory (issue 24 §6): an agent's memory items over WebSocket. A search box
 * (`memory.search`, best first with score and snippet; with an empty query
 * the newest items, `memory.list`) with kind and tag filters; an item with
 * every field (`memory.get`, ItemView.tsx); forget by id, tag, fact key or
 * source with the typed `FORGET` confirmation (Forget.tsx); the export of the
 * current filter downloaded as JSON (Export.tsx). Reloads on `memory.*`.
 */
import { useState } from "preact/hooks"
import { request } from "../../app/live.ts"
import { useResource } from "../../app/useResource.ts"
import { useCan } from "../../app/session.ts"
import { AgentField, DEFAULT_AGENT_ID } from "../../components/AgentField.tsx"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { SelectField } from "../../components/SelectField.tsx"
import { Export } from "./Export.tsx"
import { Forget, type ForgetTarget } from "./Forget.tsx"
import { ItemView } from "./ItemView.tsx"
import { Results, type Row } from "./Results.tsx"
import { filterOf, KIND_OPTIONS, MEMORY_EVENTS, type MemoryKind, type MemoryQuery, parseTags } from "./types.ts"

/** Loads the rows for `q`: search hits best first, or the newest items when the query is empty. */
const load = async (q: MemoryQuery): Promise<ReadonlyArray<Row>> => {
  const filter = filterOf(q)
  if (q.query === "") {
    const page = await request("memory.list", { v: 1, filter, limit: 100 })
    return page.items.map((item) => ({ id: item.memory_item_id, kind: item.kind, item }))
  }
  const page = await request("memory.search", { v: 1, query: q.query, filter, limit: 50 })
  return page.hits.map((hit) => ({ id: hit.memory_item_id, kind: hit.kind, hit }))
}

/** The memory page. */
export default function MemoryPage() {
  const canWrite = useCan("operator.write")
  const [q, setQ] = useState<MemoryQuery>({ agent: DEFAULT_AGENT_ID, query: "", kind: "", tags: [] })
  const [draft, setDraft] = useState({ query: "", kind: "" as MemoryKind | "", tags: "" })
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const [forget, setForget] = useState<ForgetTarget | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const rows = useResource(() => load(q), { events: MEMORY_EVENTS }, [q.agent, q.query, q.kind, q.tags.join(",")])

  const submit = (event: Event) => {
    event.preventDefault()
    setQ((previous) => ({ agent: previous.agent, query: draft.query.trim(), kind: draft.kind, tags: parseTags(draft.tags) }))
  }
  const searching = q.query !== ""

  return (
    <section aria-labelledby="memory-title">
      <h1 id="memory-title">Memory</h1>
      <form class="toolbar" role="search" aria-label="Memory" onSubmit={submit}>
        <AgentField agent={q.agent} onChange={(agent) => setQ((previous) => ({ ...previous, agent }))} />
        <label>
          Search{" "}
          <input type="search" value={draft.query} maxLength={1000} placeholder="empty: newest items"
            onInput={(e) => setDraft({ ...draft, query: (e.currentTarget as HTMLInputElement).value })} />
        </label>
        <SelectField label="Kind" inline value={draft.kind} options={KIND_OPTIONS} text={(k) => k === "" ? "any" : k}
          onChange={(kind) => setDraft({ ...draft, kind })} />
        <label>
          Tags{" "}
          <input value={draft.tags} size={16} placeholder="all of: a, b"
            onInput={(e) => setDraft({ ...draft, tags: (e.currentTarget as HTMLInputElement).value })} />
        </label>
        <button type="submit" class="primary">Search</button>
      </form>
      <div class="toolbar">
        <span aria-live="polite" class="count">
          {rows.data ? `${rows.data.length} ${searching ? `results for “${q.query}”, best first` : "items, newest first"}` : ""}
        </span>
        {canWrite ? <button type="button" onClick={() => setForget({ kind: "tag", value: "" })}>Forget…</button> : null}
        {canWrite ? <Export filter={filterOf(q)} /> : null}
      </div>
      {notice ? <p role="status" class="ok">{notice}</p> : null}
      <ErrorNote error={rows.error} />
      {forget ? (
        <Forget agent={q.agent} target={forget} onClose={() => setForget(undefined)}
          onDone={(message) => { setNotice(message); setForget(undefined); setSelected(undefined); rows.reload() }} />
      ) : null}
      {selected !== undefined ? (
        <ItemView agent={q.agent} id={selected} onClose={() => setSelected(undefined)}
          onForget={canWrite ? () => setForget({ kind: "id", value: selected }) : undefined} />
      ) : null}
      {rows.data && rows.data.length === 0
        ? <p class="empty">{searching ? "Nothing matches." : "No memory item yet for this agent (and filter)."}</p>
        : null}
      {rows.data && rows.data.length > 0
        ? <Results rows={rows.data} searching={searching} selected={selected} onOpen={setSelected} />
        : null}
    </section>
  )
}
