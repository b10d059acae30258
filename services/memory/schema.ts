/**
 * Wire schemas of agent memory (gateway-api.md message table `memory.*`;
 * reference §5.3; docs/memory.md). Every payload may carry `v: 1` and every
 * result carries it. A memory item is one of four kinds (fact, note,
 * procedure, episode), each with its own fields next to the common ones;
 * deleting or forgetting an item leaves a tombstone.
 *
 * @module
 */
import { Schema } from "effect"
import { AgentId } from "../shared/agent.ts"
import { nonEmptyText } from "../shared/schemas.ts"

/** The record version every payload and result carries. */
export const MemoryVersion = Schema.Literal(1)

/** What a memory item holds. */
export const MemoryKind = Schema.Literals(["fact", "note", "procedure", "episode"])
export type MemoryKind = typeof MemoryKind.Type

/** How sensitive an item is (default `private`). */
export const MemorySensitivity = Schema.Literals(["public", "private", "sensitive"])
export type MemorySensitivity = typeof MemorySensitivity.Type

/** Where an item came from. */
export const MemorySourceKind = Schema.Literals(["user", "operator", "tool", "system", "import"])
export type MemorySourceKind = typeof MemorySourceKind.Type

/** Who deleted an item. */
export const MemoryDeletedBy = Schema.Literals(["user", "operator", "system", "budget", "consolidation"])
export type MemoryDeletedBy = typeof MemoryDeletedBy.Type

/** An ISO-8601 date-time with seconds optional and a zone (`Z` or `±hh:mm`); stored as given. */
const IsoTime = Schema.String.check(Schema.isPattern(
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/,
  { expected: "an ISO-8601 date-time with a zone (Z or ±hh:mm)" }
))

/** A UUID (the id of a memory item). */
export const MemoryItemId = Schema.String.check(
  Schema.isPattern(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, { expected: "a UUID" })
)

/** A tag: 1..128 characters. */
const Tag = nonEmptyText(128)
/** At most 64 tags. */
const Tags = Schema.Array(Tag).check(Schema.isMaxLength(64, { expected: "at most 64 tags" }))
/** Long markdown text: 1..100 000 characters. */
const Markdown = nonEmptyText(100_000)
/** A confidence from 0 to 1. */
const Confidence = Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 }, { expected: "a number from 0 to 1" }))

/** Where an item came from: `source_kind`, optional conversation ids, `refs` (default `[]`) and free `metadata`. */
export const MemoryProvenance = Schema.Struct({
  source_kind: MemorySourceKind,
  channel: Schema.optionalKey(nonEmptyText(256)),
  thread_id: Schema.optionalKey(nonEmptyText(256)),
  session_id: Schema.optionalKey(nonEmptyText(256)),
  message_id: Schema.optionalKey(nonEmptyText(256)),
  tool_call_id: Schema.optionalKey(nonEmptyText(256)),
  refs: Schema.Array(nonEmptyText(2048)).check(Schema.isMaxLength(64, { expected: "at most 64 refs" })),
  metadata: Schema.optionalKey(Schema.Unknown)
}).annotate({ identifier: "MemoryProvenance" })
export type MemoryProvenance = typeof MemoryProvenance.Type

/** A provenance as a client sends it: `refs` may be left out. */
export const MemoryProvenanceInput = Schema.Struct({
  ...MemoryProvenance.fields,
  refs: Schema.optionalKey(MemoryProvenance.fields.refs)
})
export type MemoryProvenanceInput = typeof MemoryProvenanceInput.Type

const common = {
  v: MemoryVersion,
  memory_item_id: MemoryItemId,
  agent_id: AgentId,
  tags: Schema.Array(Schema.String),
  sensitivity: MemorySensitivity,
  provenance: MemoryProvenance,
  created_at: Schema.String,
  updated_at: Schema.optionalKey(Schema.String)
}

/** The fields of each kind, as stored and returned. */
export const KindFields = {
  fact: { key: nonEmptyText(512), value: Schema.Unknown, observed_at: IsoTime, confidence: Confidence },
  note: { title: Schema.optionalKey(nonEmptyText(512)), body_md: Markdown },
  procedure: { title: Schema.optionalKey(nonEmptyText(512)), body_md: Markdown, confidence: Schema.optionalKey(Confidence) },
  episode: { occurred_at: IsoTime, summary_md: Markdown }
} as const

/** The names of every kind-specific field, by kind (for `memory.update`'s compatibility check). */
export const KIND_FIELD_NAMES: Readonly<Record<MemoryKind, ReadonlyArray<string>>> = {
  fact: Object.keys(KindFields.fact),
  note: Object.keys(KindFields.note),
  procedure: Object.keys(KindFields.procedure),
  episode: Object.keys(KindFields.episode)
}

/** A fact: `{key, value (any JSON), observed_at, confidence 0..1}`. */
export const MemoryFact = Schema.Struct({ ...common, kind: Schema.Literal("fact"), ...KindFields.fact })
/** A note: `{title?, body_md}`. */
export const MemoryNote = Schema.Struct({ ...common, kind: Schema.Literal("note"), ...KindFields.note })
/** A procedure: `{title?, body_md, confidence?}`. */
export const MemoryProcedure = Schema.Struct({ ...common, kind: Schema.Literal("procedure"), ...KindFields.procedure })
/** An episode: `{occurred_at, summary_md}`. */
export const MemoryEpisode = Schema.Struct({ ...common, kind: Schema.Literal("episode"), ...KindFields.episode })

/** A memory item (reference §5.3): the common fields plus its kind's. Times are ISO-8601 UTC. */
export const MemoryItem = Schema.Union([MemoryFact, MemoryNote, MemoryProcedure, MemoryEpisode]).annotate({ identifier: "MemoryItem" })
export type MemoryItem = typeof MemoryItem.Type

/** What is left of a deleted or forgotten item. */
export const MemoryTombstone = Schema.Struct({
  v: MemoryVersion,
  memory_item_id: MemoryItemId,
  agent_id: AgentId,
  deleted_at: Schema.String,
  deleted_by: MemoryDeletedBy,
  reason: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "MemoryTombstone" })
export type MemoryTombstone = typeof MemoryTombstone.Type

const inputCommon = {
  agent_id: Schema.optionalKey(AgentId),
  tags: Schema.optionalKey(Tags),
  sensitivity: Schema.optionalKey(MemorySensitivity),
  provenance: Schema.optionalKey(MemoryProvenanceInput)
}

/**
 * A new item as `memory.create` takes it: `kind` and its fields; `agent_id`
 * default `default`, `tags` default `[]`, `sensitivity` default `private`,
 * `provenance` default `{source_kind: "operator", refs: []}`.
 */
export const MemoryItemInput = Schema.Union([
  Schema.Struct({ ...inputCommon, kind: Schema.Literal("fact"), ...KindFields.fact }),
  Schema.Struct({ ...inputCommon, kind: Schema.Literal("note"), ...KindFields.note }),
  Schema.Struct({ ...inputCommon, kind: Schema.Literal("procedure"), ...KindFields.procedure }),
  Schema.Struct({ ...inputCommon, kind: Schema.Literal("episode"), ...KindFields.episode })
]).annotate({ identifier: "MemoryItemInput" })
export type MemoryItemInput = typeof MemoryItemInput.Type

/**
 * `memory.update`'s patch: common fields and any kind's fields; those of
 * another kind than the item's are refused (`invalid_request`
 * "incompatible patch fields for kind=<kind>: <fields>").
 */
export const MemoryPatch = Schema.Struct({
  tags: Schema.optionalKey(Tags),
  sensitivity: Schema.optionalKey(MemorySensitivity),
  provenance: Schema.optionalKey(MemoryProvenanceInput),
  key: Schema.optionalKey(KindFields.fact.key),
  value: Schema.optionalKey(Schema.Unknown),
  observed_at: Schema.optionalKey(IsoTime),
  confidence: Schema.optionalKey(Confidence),
  title: Schema.optionalKey(nonEmptyText(512)),
  body_md: Schema.optionalKey(Markdown),
  occurred_at: Schema.optionalKey(IsoTime),
  summary_md: Schema.optionalKey(Markdown)
}).annotate({ identifier: "MemoryPatch" })
export type MemoryPatch = typeof MemoryPatch.Type

/**
 * Listing and search filters: `kinds` (any of), `tags` (all of),
 * `sensitivities` (any of), `provenance.source_kinds` (any of), `agent_id`
 * (default `default`) and a `created_at` range (`created_after` inclusive,
 * `created_before` exclusive).
 */
export const MemoryFilter = Schema.Struct({
  agent_id: Schema.optionalKey(AgentId),
  kinds: Schema.optionalKey(Schema.Array(MemoryKind).check(Schema.isMaxLength(4, { expected: "at most 4 kinds" }))),
  tags: Schema.optionalKey(Tags),
  sensitivities: Schema.optionalKey(Schema.Array(MemorySensitivity).check(Schema.isMaxLength(3, { expected: "at most 3 sensitivities" }))),
  provenance: Schema.optionalKey(Schema.Struct({
    source_kinds: Schema.optionalKey(Schema.Array(MemorySourceKind).check(Schema.isMaxLength(5, { expected: "at most 5 source kinds" })))
  })),
  created_after: Schema.optionalKey(IsoTime),
  created_before: Schema.optionalKey(IsoTime)
}).annotate({ identifier: "MemoryFilter" })
export type MemoryFilter = typeof MemoryFilter.Type

/** Default page size of `memory.list` and `memory.search`. */
export const DEFAULT_MEMORY_PAGE = 50
/** Largest page; a larger `limit` is clamped to it (and one below 1 to 1). */
export const MAX_MEMORY_PAGE = 500

const v = Schema.optionalKey(MemoryVersion)
const limit = Schema.optionalKey(Schema.Int)
const cursor = Schema.optionalKey(nonEmptyText(1024))
/** An optional agent id selecting whose item an id names (default `default`). */
const agent = Schema.optionalKey(AgentId)

/** `memory.create {item}`. */
export const MemoryCreateRequest = Schema.Struct({ v, item: MemoryItemInput }).annotate({ identifier: "WsMemoryCreateRequest" })
/** `memory.get {memory_item_id, agent_id?}`. */
export const MemoryGetRequest = Schema.Struct({ v, memory_item_id: MemoryItemId, agent_id: agent }).annotate({ identifier: "WsMemoryGetRequest" })
/** `memory.list {filter?, limit?, cursor?}`. */
export const MemoryListRequest = Schema.Struct({ v, filter: Schema.optionalKey(MemoryFilter), limit, cursor }).annotate({ identifier: "WsMemoryListRequest" })
/** `memory.update {memory_item_id, patch, agent_id?}`. */
export const MemoryUpdateRequest = Schema.Struct({ v, memory_item_id: MemoryItemId, agent_id: agent, patch: MemoryPatch }).annotate({ identifier: "WsMemoryUpdateRequest" })
/** `memory.delete {memory_item_id, reason?, agent_id?}`. */
export const MemoryDeleteRequest = Schema.Struct({
  v,
  memory_item_id: MemoryItemId,
  agent_id: agent,
  reason: Schema.optionalKey(nonEmptyText(2000))
}).annotate({ identifier: "WsMemoryDeleteRequest" })

/** A forget selector: one item by id, facts by key, items by tag or by provenance source kind. */
export const MemoryForgetSelector = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("id"), memory_item_id: MemoryItemId }),
  Schema.Struct({ kind: Schema.Literal("key"), key: KindFields.fact.key }),
  Schema.Struct({ kind: Schema.Literal("tag"), tag: Tag }),
  Schema.Struct({ kind: Schema.Literal("provenance"), source_kind: MemorySourceKind })
]).annotate({ identifier: "MemoryForgetSelector" })
export type MemoryForgetSelector = typeof MemoryForgetSelector.Type

/** `memory.forget {confirm: "FORGET", selectors, agent_id?, reason?}`; `confirm` is checked by the service. */
export const MemoryForgetRequest = Schema.Struct({
  v,
  confirm: Schema.String,
  agent_id: agent,
  selectors: Schema.Array(MemoryForgetSelector).check(
    Schema.isMinLength(1, { expected: "at least one selector" }),
    Schema.isMaxLength(100, { expected: "at most 100 selectors" })
  ),
  reason: Schema.optionalKey(nonEmptyText(2000))
}).annotate({ identifier: "WsMemoryForgetRequest" })
export type MemoryForgetRequest = typeof MemoryForgetRequest.Type

/** `memory.search {query, filter?, limit?, cursor?}`. */
export const MemorySearchRequest = Schema.Struct({
  v,
  query: nonEmptyText(1000),
  filter: Schema.optionalKey(MemoryFilter),
  limit,
  cursor
}).annotate({ identifier: "WsMemorySearchRequest" })
export type MemorySearchRequest = typeof MemorySearchRequest.Type
export type MemoryListRequest = typeof MemoryListRequest.Type

/** `{v, item}`: the result of create, get and update. */
export const MemoryItemResult = Schema.Struct({ v: MemoryVersion, item: MemoryItem }).annotate({ identifier: "WsMemoryItemResult" })
export type MemoryItemResult = typeof MemoryItemResult.Type
/** `{v, items, next_cursor?}`. */
export const MemoryListResult = Schema.Struct({
  v: MemoryVersion,
  items: Schema.Array(MemoryItem),
  next_cursor: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "WsMemoryListResult" })
export type MemoryListResult = typeof MemoryListResult.Type
/** `{v, tombstone}`. */
export const MemoryDeleteResult = Schema.Struct({ v: MemoryVersion, tombstone: MemoryTombstone }).annotate({ identifier: "WsMemoryDeleteResult" })
export type MemoryDeleteResult = typeof MemoryDeleteResult.Type
/** `{v, deleted_count, tombstones}`. */
export const MemoryForgetResult = Schema.Struct({
  v: MemoryVersion,
  deleted_count: Schema.Int,
  tombstones: Schema.Array(MemoryTombstone)
}).annotate({ identifier: "WsMemoryForgetResult" })
export type MemoryForgetResult = typeof MemoryForgetResult.Type

/** Which ranking found a hit of a semantic search: the keyword search, the vector search, or both. */
export const MemorySearchMatch = Schema.Literals(["keyword", "semantic"])

/**
 * One search hit: `score` in 0..1 (higher is better), `snippet` with the
 * match in `[…]` (keyword matches only), and, when semantic search is on
 * (`SVC_MEMORY_SEMANTIC`), `matched`: `["keyword"]`, `["semantic"]` or
 * `["keyword", "semantic"]`.
 */
export const MemorySearchHit = Schema.Struct({
  memory_item_id: MemoryItemId,
  kind: MemoryKind,
  score: Schema.Number,
  snippet: Schema.optionalKey(Schema.String),
  provenance: Schema.optionalKey(MemoryProvenance),
  matched: Schema.optionalKey(Schema.Array(MemorySearchMatch))
}).annotate({ identifier: "MemorySearchHit" })
export type MemorySearchHit = typeof MemorySearchHit.Type
/** `{v, hits, next_cursor?}`: best first. */
export const MemorySearchResult = Schema.Struct({
  v: MemoryVersion,
  hits: Schema.Array(MemorySearchHit),
  next_cursor: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "WsMemorySearchResult" })
export type MemorySearchResult = typeof MemorySearchResult.Type

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
