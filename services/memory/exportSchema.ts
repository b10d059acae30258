/**
 * Memory exports (issue 24 §1; gateway-api.md "Memory exports"; docs/memory.md
 * "Exports"): the `memory.export` request and result, and the document an
 * export artifact holds.
 *
 * @module
 */
import { Schema } from "effect"
import { MemoryFilter, MemoryItem, MemoryTombstone, MemoryVersion } from "./schema.ts"

/** The labels every memory export artifact carries (and `GET /memory/exports/:id` requires). */
export const MEMORY_EXPORT_LABELS = ["memory", "memory_v1", "export"] as const

/** `memory.export {filter?, include_tombstones?}`: `filter` as `memory.list` (its `agent_id` selects the agent); tombstones only when asked. */
export const MemoryExportRequest = Schema.Struct({
  v: Schema.optionalKey(MemoryVersion),
  filter: Schema.optionalKey(MemoryFilter),
  include_tombstones: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "WsMemoryExportRequest" })
export type MemoryExportRequest = typeof MemoryExportRequest.Type

/** `{v, artifact_id}`: the export artifact, downloadable at `GET /memory/exports/<artifact_id>`. */
export const MemoryExportResult = Schema.Struct({
  v: MemoryVersion,
  artifact_id: Schema.String
}).annotate({ identifier: "WsMemoryExportResult" })
export type MemoryExportResult = typeof MemoryExportResult.Type

/**
 * The JSON an export artifact holds: `{v: 1, exported_at, filter, include_tombstones, items, tombstones?}`; items
 * newest first (the order of `memory.list`), tombstones oldest deletion first and present only with
 * `include_tombstones: true`. `filter` is the request's (with `agent_id` filled in).
 */
export const MemoryExportDocument = Schema.Struct({
  v: MemoryVersion,
  exported_at: Schema.String,
  filter: MemoryFilter,
  include_tombstones: Schema.Boolean,
  items: Schema.Array(MemoryItem),
  tombstones: Schema.optionalKey(Schema.Array(MemoryTombstone))
}).annotate({ identifier: "MemoryExportDocument" })
export type MemoryExportDocument = typeof MemoryExportDocument.Type

/** `memory.export.completed {v, artifact_id, agent_id, item_count, tombstone_count}`. */
export const MemoryExportCompletedPayload = Schema.Struct({
  v: MemoryVersion,
  artifact_id: Schema.String,
  agent_id: Schema.String,
  item_count: Schema.Int,
  tombstone_count: Schema.Int
}).annotate({ identifier: "MemoryExportCompleted" })
