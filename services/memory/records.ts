/**
 * Memory items and their stored rows (services/memory/migrations): the wire
 * record from a row and back, and the searchable text of an item. Pure
 * functions.
 *
 * @module
 */
import { Schema } from "effect"
import { TimestampColumn } from "../../layers/storage/columns.ts"
import { type MemoryItem, MemoryKind, MemoryProvenance, MemorySensitivity, type MemoryTombstone, MemoryDeletedBy } from "./schema.ts"

/** A stored item: filter columns, `tags`/`provenance`/`data` as JSON text, the derived `search_*` text. */
export const MemoryItemRow = Schema.Struct({
  memory_item_id: Schema.String,
  agent_id: Schema.String,
  kind: MemoryKind,
  sensitivity: MemorySensitivity,
  source_kind: Schema.String,
  fact_key: Schema.NullOr(Schema.String),
  tags: Schema.fromJsonString(Schema.Array(Schema.String)),
  provenance: Schema.fromJsonString(MemoryProvenance),
  data: Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)),
  search_title: Schema.String,
  search_body: Schema.String,
  search_tags: Schema.String,
  created_at: TimestampColumn,
  updated_at: Schema.NullOr(TimestampColumn)
})
export type MemoryItemRow = typeof MemoryItemRow.Type

/** A stored tombstone. */
export const MemoryTombstoneRow = Schema.Struct({
  memory_item_id: Schema.String,
  agent_id: Schema.String,
  deleted_at: TimestampColumn,
  deleted_by: MemoryDeletedBy,
  reason: Schema.NullOr(Schema.String)
})
export type MemoryTombstoneRow = typeof MemoryTombstoneRow.Type

/** The kind-specific fields of an item (everything but the common ones). */
const kindData = (item: MemoryItem): Record<string, unknown> => {
  const {
    v: _v,
    memory_item_id: _id,
    agent_id: _agent,
    kind: _kind,
    tags: _tags,
    sensitivity: _sensitivity,
    provenance: _provenance,
    created_at: _created,
    updated_at: _updated,
    ...data
  } = item
  return data
}

const text = (u: unknown): string => (typeof u === "string" ? u : u === undefined ? "" : JSON.stringify(u))

/** The row of an item, with its searchable text (title: title and fact key; body: body, summary, fact value). */
export const toRow = (item: MemoryItem): MemoryItemRow => {
  const data = kindData(item)
  return {
    memory_item_id: item.memory_item_id,
    agent_id: item.agent_id,
    kind: item.kind,
    sensitivity: item.sensitivity,
    source_kind: item.provenance.source_kind,
    fact_key: item.kind === "fact" ? item.key : null,
    tags: item.tags,
    provenance: item.provenance,
    data,
    search_title: [text(data.title), text(data.key)].filter((s) => s !== "").join(" "),
    search_body: [text(data.body_md), text(data.summary_md), text(data.value)].filter((s) => s !== "").join(" "),
    search_tags: item.tags.join(" "),
    created_at: item.created_at,
    updated_at: item.updated_at ?? null
  }
}

/** The wire record of a row. */
export const toItem = (row: MemoryItemRow): MemoryItem =>
  ({
    v: 1,
    memory_item_id: row.memory_item_id,
    agent_id: row.agent_id,
    kind: row.kind,
    tags: row.tags,
    sensitivity: row.sensitivity,
    provenance: row.provenance,
    ...row.data,
    created_at: row.created_at,
    ...(row.updated_at !== null ? { updated_at: row.updated_at } : {})
  }) as MemoryItem

/** The wire record of a tombstone row. */
export const toTombstone = (row: MemoryTombstoneRow): MemoryTombstone => ({
  v: 1,
  memory_item_id: row.memory_item_id,
  agent_id: row.agent_id,
  deleted_at: row.deleted_at,
  deleted_by: row.deleted_by,
  ...(row.reason !== null ? { reason: row.reason } : {})
})

/** Most characters of an item's text that are embedded (the start of it; about 2000 tokens). */
export const EMBEDDING_MAX_CHARS = 8000

/**
 * The text of an item that semantic search embeds: its title and fact key,
 * body, summary and fact value, and tags (one line each, empty ones left
 * out), cut to {@link EMBEDDING_MAX_CHARS} characters.
 */
export const embeddingText = (row: Pick<MemoryItemRow, "search_title" | "search_body" | "search_tags">): string =>
  [row.search_title, row.search_body, row.search_tags].filter((s) => s !== "").join("\n").slice(0, EMBEDDING_MAX_CHARS)
