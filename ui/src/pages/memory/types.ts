/** The memory shapes, from the declarations the server uses (services/memory/schema.ts). */
import type { MemoryFilter, MemoryKind } from "../../../../services/memory/schema.ts"

export type {
  MemoryFilter,
  MemoryForgetSelector,
  MemoryItem,
  MemoryKind,
  MemorySearchHit
} from "../../../../services/memory/schema.ts"

/** The kinds the filter offers (`""`: any kind). */
export const KIND_OPTIONS: ReadonlyArray<MemoryKind | ""> = ["", "fact", "note", "procedure", "episode"]

/** The event types that make the page's data stale (docs/memory.md "Events"). */
export const MEMORY_EVENTS: ReadonlyArray<string> = ["memory."]

/** What the operator asked for: the query (empty: list newest first), one kind or any, tags (all of). */
export interface MemoryQuery {
  readonly agent: string
  readonly query: string
  readonly kind: MemoryKind | ""
  readonly tags: ReadonlyArray<string>
}

/** The `filter` of `memory.list`, `memory.search` and `memory.export` for `q`. */
export const filterOf = (q: MemoryQuery): MemoryFilter => ({
  agent_id: q.agent,
  ...(q.kind === "" ? {} : { kinds: [q.kind] }),
  ...(q.tags.length === 0 ? {} : { tags: q.tags })
})

/** Tags typed as a comma-separated list: trimmed, empty ones dropped. */
export const parseTags = (text: string): ReadonlyArray<string> =>
  text.split(",").map((tag) => tag.trim()).filter((tag) => tag !== "")
