/**
 * Agent memory (gateway-api.md `memory.*`; reference §5.3; docs/memory.md):
 * items of four kinds per agent, listed with filters and keyset cursors,
 * searched by keyword with ranking (and, with an embedder, by vector too,
 * the two rankings fused by reciprocal rank fusion), patched within their
 * kind, deleted and forgotten with tombstones.
 *
 * Every operation names an agent (default `default`); an item of one agent
 * is never read, changed or removed through another. Writes are announced
 * to operator readers (`memory.item.created|updated|deleted|forgotten`)
 * after they commit, and each is a `Decision` of the `gateway.memory` audit
 * chain (ids, kind and agent only: never an item's content), appended in the
 * transaction of the write.
 *
 * @module
 */
import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Decision, GATEWAY_CHAIN_PREFIX } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { DEFAULT_AGENT_ID } from "../shared/agent.ts"
import type { InvalidRequest, NotFound } from "../shared/errors.ts"
import { isoTime } from "../shared/time.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { listCursor, searchCursor, searchDigest } from "./cursor.ts"
import { emptyPatch, forgetNotConfirmed, incompatiblePatch, invalidCursor, itemNotFound } from "./errors.ts"
import { MemoryItemCreated, MemoryItemDeleted, MemoryItemForgotten, MemoryItemUpdated } from "./events.ts"
import { type ActiveEmbedder, MemoryEmbedder } from "./embeddings/MemoryEmbedder.ts"
import { MemoryRepo, type MemorySearchItem, type MemorySearchRow, queryWords } from "./MemoryRepo.ts"
import { MemoryVectorRepo } from "./MemoryVectorRepo.ts"
import { embeddingText, toItem, toRow, toTombstone } from "./records.ts"
import {
  DEFAULT_MEMORY_PAGE,
  KIND_FIELD_NAMES,
  MAX_MEMORY_PAGE,
  type MemoryDeleteResult,
  type MemoryFilter,
  type MemoryForgetRequest,
  type MemoryForgetResult,
  type MemoryItem,
  type MemoryItemInput,
  type MemoryItemResult,
  type MemoryKind,
  type MemoryListRequest,
  type MemoryListResult,
  type MemoryPatch,
  type MemorySearchHit,
  type MemorySearchRequest,
  type MemorySearchResult
} from "./schema.ts"

/** The audit chain of memory decisions (docs/audit.md "Chains"). */
export const MEMORY_CHAIN = `${GATEWAY_CHAIN_PREFIX}memory`

/** The confirmation `memory.forget` requires, exactly. */
export const FORGET_CONFIRMATION = "FORGET"

/** `limit` clamped to 1..500 (default 50); not refused. */
export const clampLimit = (limit: number | undefined): number =>
  limit === undefined ? DEFAULT_MEMORY_PAGE : Math.min(MAX_MEMORY_PAGE, Math.max(1, Math.trunc(limit)))

const COMMON_PATCH_FIELDS = new Set(["tags", "sensitivity", "provenance"])

/** The patch fields that do not belong to `kind` (sorted), if any. */
export const foreignPatchFields = (kind: MemoryKind, patch: MemoryPatch): ReadonlyArray<string> => {
  const own = new Set(KIND_FIELD_NAMES[kind])
  return Object.keys(patch).filter((field) => !COMMON_PATCH_FIELDS.has(field) && !own.has(field)).sort()
}

/** The constant `k` of reciprocal rank fusion: an item at rank `r` (from 1) of a ranking scores `1 / (k + r)`. */
export const RRF_K = 60

/**
 * How deep each ranking is read when semantic search is on: the best
 * {@link FUSION_DEPTH} keyword hits and as many vector hits are fused, so a
 * semantic search pages through at most twice as many hits.
 */
export const FUSION_DEPTH = 500

/** Where a fused hit came from. */
export type MemoryMatch = "keyword" | "semantic"

/** A fused hit: the item, its score in 0..1 and the rankings that had it. */
export interface FusedHit {
  readonly id: string
  readonly score: number
  readonly matched: ReadonlyArray<MemoryMatch>
}

/**
 * Reciprocal rank fusion of the keyword and the semantic ranking (ids best
 * first): each item scores the sum of `1 / (k + rank)` over the rankings that
 * hold it, divided by `2 / (k + 1)` (first in both), so scores are in 0..1;
 * best first, ties by id. `matched` lists the rankings holding the item.
 */
export const fuseRankings = (
  keyword: ReadonlyArray<string>,
  semantic: ReadonlyArray<string>,
  k: number = RRF_K
): Array<FusedHit> => {
  const fused = new Map<string, { score: number; matched: Array<MemoryMatch> }>()
  const add = (ids: ReadonlyArray<string>, match: MemoryMatch) =>
    ids.forEach((id, index) => {
      const entry = fused.get(id) ?? { score: 0, matched: [] }
      entry.score += 1 / (k + index + 1)
      entry.matched.push(match)
      fused.set(id, entry)
    })
  add(keyword, "keyword")
  add(semantic, "semantic")
  const best = 2 / (k + 1)
  return [...fused.entries()]
    .map(([id, { matched, score }]) => ({ id, score: Math.min(1, score / best), matched }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** How many hits each ranking of a search had (the agent runtime's context report). */
export interface MemorySearchStats {
  /** Keyword hits (within {@link FUSION_DEPTH} when semantic search is on; of the page otherwise). */
  readonly keyword_hits: number
  /** Vector hits at or above the least similarity (0 when semantic search is off or the embedder failed). */
  readonly semantic_hits: number
}

/** A search's result and its {@link MemorySearchStats}. */
export interface MemorySearchWithStats {
  readonly result: MemorySearchResult
  readonly stats: MemorySearchStats
}

/** Applies `patch` to `current` (the patch's fields checked by the caller), stamping `updated_at`. */
const patched = (current: MemoryItem, patch: MemoryPatch, updatedAt: string): MemoryItem => {
  const { provenance, tags, ...rest } = patch
  return {
    ...current,
    ...rest,
    ...(tags !== undefined ? { tags: [...new Set(tags)] } : {}),
    ...(provenance !== undefined ? { provenance: { ...provenance, refs: provenance.refs ?? [] } } : {}),
    updated_at: updatedAt
  } as MemoryItem
}

/** The memory service. */
export class Memory extends Context.Service<Memory, {
  /** Stores a new item (`{v, item}`). */
  readonly create: (input: MemoryItemInput) => Effect.Effect<MemoryItemResult>
  /** The agent's item; `NotFound` "memory item not found". */
  readonly get: (id: string, agentId?: string) => Effect.Effect<MemoryItemResult, NotFound>
  /** One page of the agent's items, newest first; `InvalidRequest` "invalid cursor". */
  readonly list: (request: MemoryListRequest) => Effect.Effect<MemoryListResult, InvalidRequest>
  /** Patches an item within its kind; `NotFound`, or `InvalidRequest` for another kind's fields or an empty patch. */
  readonly update: (id: string, patch: MemoryPatch, agentId?: string) => Effect.Effect<MemoryItemResult, NotFound | InvalidRequest>
  /** Deletes an item, leaving a tombstone (deleted by `operator`); `NotFound` when there is none. */
  readonly delete: (id: string, reason?: string, agentId?: string) => Effect.Effect<MemoryDeleteResult, NotFound>
  /** Deletes every item a selector matches (tombstones by `operator`); `InvalidRequest` without the exact confirmation. */
  readonly forget: (request: MemoryForgetRequest) => Effect.Effect<MemoryForgetResult, InvalidRequest>
  /**
   * Ranked search, best first: keyword search, fused with vector search by
   * reciprocal rank fusion when semantic search is on (each hit then says
   * which ranking `matched` it); `InvalidRequest` "invalid cursor".
   */
  readonly search: (request: MemorySearchRequest) => Effect.Effect<MemorySearchResult, InvalidRequest>
  /** {@link search} with the number of keyword and semantic hits (for the agent runtime's context report). */
  readonly searchWithStats: (request: MemorySearchRequest) => Effect.Effect<MemorySearchWithStats, InvalidRequest>
  /**
   * Embeds up to `limit` items that have no vector of the current embedder
   * (written while semantic search was off, before a change of embedder, or
   * when the embedder failed) and stores their vectors; the number embedded.
   * 0 when semantic search is off. The gateway runs it in the background at
   * start until nothing is left.
   */
  readonly embedMissing: (limit: number) => Effect.Effect<number>
}>()("svc-gateway/memory/Memory") {
  /**
   * Needs {@link MemoryRepo}, {@link MemoryVectorRepo}, {@link MemoryEmbedder}, `EventBus`, `DomainEvents` (publishes
   * `Decision`) and a `SqlClient` (after-commit announcements). With an active embedder it starts the backfill
   * ({@link Memory} `embedMissing`) in the background, in the layer's scope.
   */
  static readonly layerNoDeps = Layer.effect(
    Memory,
    Effect.gen(function*() {
      const repo = yield* MemoryRepo
      const vectors = yield* MemoryVectorRepo
      const { active } = yield* MemoryEmbedder
      const events = yield* EventBus
      const domainEvents = yield* DomainEvents
      const sql = yield* SqlClient.SqlClient
      const now = Effect.map(Clock.currentTimeMillis, isoTime)

      const decided = (action: { readonly type: string; readonly [field: string]: unknown }) =>
        domainEvents.publish(Decision, { chain: MEMORY_CHAIN, action })
      /** Publishes once the caller's transaction commits (at once outside one). */
      const announce = (effect: Effect.Effect<unknown>) => sql.afterCommit(effect)

      /** The vector of `text`, or `undefined` when the embedder fails (logged; the item waits for the backfill). */
      const embed = (embedder: ActiveEmbedder, text: string) =>
        embedder.model.embed(text).pipe(
          Effect.map((response): ReadonlyArray<number> | undefined => response.vector),
          Effect.catch((error) =>
            Effect.as(
              Effect.logWarning("memory: embedding failed; the item is stored without its vector").pipe(
                Effect.annotateLogs({ model_id: embedder.modelId, error: error.message })
              ),
              undefined
            )
          )
        )
      const space = (embedder: ActiveEmbedder) => ({ modelId: embedder.modelId, dimensions: 0 })

      const create = Effect.fn("Memory.create")(function*(input: MemoryItemInput) {
        const { agent_id, tags, sensitivity, provenance, ...fields } = input
        const item = {
          ...fields,
          v: 1,
          memory_item_id: crypto.randomUUID(),
          agent_id: agent_id ?? DEFAULT_AGENT_ID,
          tags: [...new Set(tags ?? [])],
          sensitivity: sensitivity ?? "private",
          provenance: { ...(provenance ?? { source_kind: "operator" }), refs: provenance?.refs ?? [] },
          created_at: yield* now
        } as MemoryItem
        const row = toRow(item)
        const vector = active === undefined ? undefined : yield* embed(active, embeddingText(row))
        yield* repo.transaction(Effect.gen(function*() {
          yield* repo.insert(row)
          if (active !== undefined && vector !== undefined) yield* vectors.put(space(active), item.memory_item_id, vector)
          yield* decided({ type: "memory.item.created", memory_item_id: item.memory_item_id, agent_id: item.agent_id, kind: item.kind })
        }))
        yield* announce(events.publish(MemoryItemCreated, { v: 1, item }))
        return { v: 1, item } as const
      })

      const get = Effect.fn("Memory.get")(function*(id: string, agentId?: string) {
        const row = yield* repo.get(agentId ?? DEFAULT_AGENT_ID, id)
        if (row === undefined) return yield* itemNotFound()
        return { v: 1, item: toItem(row) } as const
      })

      const agentOf = (filter: MemoryFilter | undefined) => filter?.agent_id ?? DEFAULT_AGENT_ID

      const list = Effect.fn("Memory.list")(function*(request: MemoryListRequest) {
        const after = request.cursor === undefined ? undefined : listCursor.decode(request.cursor)
        if (request.cursor !== undefined && after === undefined) return yield* invalidCursor()
        const limit = clampLimit(request.limit)
        const rows = yield* repo.list({ agentId: agentOf(request.filter), filter: request.filter }, after, limit + 1)
        const page = rows.slice(0, limit).map(toItem)
        const last = page[page.length - 1]
        return rows.length > limit
          ? { v: 1, items: page, next_cursor: listCursor.encode(last.created_at, last.memory_item_id) } as const
          : { v: 1, items: page } as const
      })

      const update = Effect.fn("Memory.update")(function*(id: string, patch: MemoryPatch, agentId?: string) {
        if (Object.keys(patch).length === 0) return yield* emptyPatch()
        const agent = agentId ?? DEFAULT_AGENT_ID
        // Semantic search: the patched text is embedded before the transaction (no lock is held over the embedder).
        const embedded = active === undefined ? undefined : yield* Effect.gen(function*() {
          const before = yield* repo.get(agent, id)
          if (before === undefined || foreignPatchFields(before.kind, patch).length > 0) return undefined
          const text = embeddingText(toRow(patched(toItem(before), patch, before.created_at)))
          if (text === embeddingText(before)) return undefined
          const vector = yield* embed(active, text)
          return vector === undefined ? undefined : { text, vector }
        })
        return yield* repo.transaction(Effect.gen(function*() {
          const row = yield* repo.get(agent, id, { lock: true })
          if (row === undefined) return yield* itemNotFound()
          const current = toItem(row)
          const foreign = foreignPatchFields(current.kind, patch)
          if (foreign.length > 0) return yield* incompatiblePatch(current.kind, foreign)
          const item = patched(current, patch, yield* now)
          const replacement = toRow(item)
          const replaced = yield* repo.replace(replacement)
          if (replaced === undefined) return yield* itemNotFound()
          if (active !== undefined) {
            const text = embeddingText(replacement)
            if (text !== embeddingText(row)) {
              // The new text's vector, or none until the backfill when it could not be embedded (or a concurrent
              // update changed the text since it was embedded): never the old text's vector.
              if (embedded !== undefined && embedded.text === text) yield* vectors.put(space(active), id, embedded.vector)
              else yield* vectors.drop([id])
            }
          }
          yield* decided({
            type: "memory.item.updated",
            memory_item_id: id,
            agent_id: agent,
            kind: item.kind,
            fields: Object.keys(patch).sort()
          })
          yield* announce(events.publish(MemoryItemUpdated, { v: 1, item }))
          return { v: 1, item } as const
        }))
      })

      const remove = Effect.fn("Memory.delete")(function*(id: string, reason?: string, agentId?: string) {
        const agent = agentId ?? DEFAULT_AGENT_ID
        const at = yield* now
        return yield* repo.transaction(Effect.gen(function*() {
          const existing = yield* repo.get(agent, id, { lock: true })
          if (existing === undefined) return yield* itemNotFound()
          yield* vectors.drop([id])
          const [row] = yield* repo.remove(agent, [id], { at, by: "operator", reason })
          if (row === undefined) return yield* itemNotFound()
          const tombstone = toTombstone(row)
          yield* decided({ type: "memory.item.deleted", memory_item_id: id, agent_id: agent, ...(reason !== undefined ? { reason } : {}) })
          yield* announce(events.publish(MemoryItemDeleted, { v: 1, tombstone }))
          return { v: 1, tombstone } as const
        }))
      })

      const forget = Effect.fn("Memory.forget")(function*(request: MemoryForgetRequest) {
        if (request.confirm !== FORGET_CONFIRMATION) return yield* forgetNotConfirmed()
        const agent = request.agent_id ?? DEFAULT_AGENT_ID
        const at = yield* now
        return yield* repo.transaction(Effect.gen(function*() {
          const ids = yield* repo.select(agent, request.selectors)
          yield* vectors.drop(ids)
          const rows = yield* repo.remove(agent, ids, { at, by: "operator", reason: request.reason })
          const tombstones = rows.map(toTombstone)
          const result = { v: 1, deleted_count: tombstones.length, tombstones } as const
          if (tombstones.length > 0) {
            yield* decided({
              type: "memory.forgotten",
              agent_id: agent,
              selectors: request.selectors,
              memory_item_ids: tombstones.map((t) => t.memory_item_id)
            })
            yield* announce(events.publish(MemoryItemForgotten, result))
          }
          return result
        }))
      })

      const hitOf = (row: MemorySearchItem, score: number, snippet: string | undefined): MemorySearchHit => ({
        memory_item_id: row.memory_item_id,
        kind: row.kind,
        score,
        ...(snippet !== undefined ? { snippet } : {}),
        provenance: row.provenance
      })

      /** Keyword hits and, with an embedder, vector hits fused by reciprocal rank fusion (`FUSION_DEPTH` deep). */
      const semanticSearch = (
        embedder: ActiveEmbedder,
        request: MemorySearchRequest,
        agentId: string,
        offset: number,
        limit: number
      ) =>
        Effect.gen(function*() {
          const filter = { agentId, filter: request.filter }
          const keyword = yield* repo.search(filter, queryWords(request.query), 0, FUSION_DEPTH)
          const embedded = yield* embed(embedder, request.query)
          // A query without letters or digits embeds to zeros with the built-in embedder: no direction to compare.
          const vector = embedded !== undefined && embedded.some((x) => x !== 0) ? embedded : undefined
          const semantic = vector === undefined ? [] : yield* vectors.nearest(space(embedder), filter, vector, {
            limit: FUSION_DEPTH,
            minSimilarity: embedder.minSimilarity,
            candidates: keyword.map((hit) => hit.row.memory_item_id)
          })
          const rows = new Map<string, MemorySearchItem>(semantic.map((hit) => [hit.row.memory_item_id, hit.row]))
          const snippets = new Map<string, MemorySearchRow>(keyword.map((hit) => [hit.row.memory_item_id, hit]))
          for (const hit of keyword) rows.set(hit.row.memory_item_id, hit.row)
          const fused = fuseRankings(keyword.map((hit) => hit.row.memory_item_id), semantic.map((hit) => hit.row.memory_item_id))
          const hits = fused.slice(offset, offset + limit + 1).map((f): MemorySearchHit => ({
            ...hitOf(rows.get(f.id)!, f.score, snippets.get(f.id)?.snippet),
            matched: f.matched
          }))
          return { hits, stats: { keyword_hits: keyword.length, semantic_hits: semantic.length } }
        })

      const searchWithStats = Effect.fn("Memory.search")(function*(request: MemorySearchRequest) {
        const agentId = agentOf(request.filter)
        // A cursor is bound to the search, and with semantic search on to the embedder too. The digest is taken
        // only when a cursor is read or written: a search of one page (most of them) needs none.
        const digest = () =>
          searchDigest(
            agentId,
            request.query,
            active === undefined ? request.filter : { filter: request.filter ?? null, semantic: active.modelId }
          )
        const offset = request.cursor === undefined ? 0 : searchCursor.decode(request.cursor, digest())
        if (offset === undefined) return yield* invalidCursor()
        const limit = clampLimit(request.limit)
        const { hits, stats } = active === undefined
          ? yield* Effect.map(
            repo.search({ agentId, filter: request.filter }, queryWords(request.query), offset, limit + 1),
            (rows) => {
              const hits = rows.map(({ row, score, snippet }) => hitOf(row, score, snippet))
              return { hits, stats: { keyword_hits: Math.min(hits.length, limit), semantic_hits: 0 } }
            }
          )
          : yield* semanticSearch(active, request, agentId, offset, limit)
        const page = hits.slice(0, limit)
        const result: MemorySearchResult = hits.length > limit
          ? { v: 1, hits: page, next_cursor: searchCursor.encode(digest(), offset + limit) }
          : { v: 1, hits: page }
        return { result, stats }
      })

      const search = (request: MemorySearchRequest) => Effect.map(searchWithStats(request), (r) => r.result)

      const embedMissing = Effect.fn("Memory.embedMissing")(function*(limit: number) {
        if (active === undefined) return 0
        const rows = yield* vectors.missing(active.modelId, limit)
        if (rows.length === 0) return 0
        const embedded = yield* active.model.embedMany(rows.map(embeddingText)).pipe(
          Effect.catch((error) =>
            Effect.as(
              Effect.logWarning("memory: embedding missing vectors failed").pipe(
                Effect.annotateLogs({ model_id: active.modelId, error: error.message })
              ),
              undefined
            )
          )
        )
        if (embedded === undefined) return 0
        for (let i = 0; i < rows.length; i++) {
          // An item deleted meanwhile is skipped (its vector would reference no item).
          const still = yield* repo.get(rows[i].agent_id, rows[i].memory_item_id)
          if (still !== undefined && embeddingText(still) === embeddingText(rows[i])) {
            yield* vectors.put(space(active), rows[i].memory_item_id, embedded.embeddings[i].vector)
          }
        }
        return rows.length
      })

      if (active !== undefined) {
        // The backfill: batches of 32 until none is left or the embedder fails.
        yield* Effect.forkScoped(Effect.gen(function*() {
          let total = 0
          while (true) {
            const n = yield* embedMissing(32)
            if (n === 0) break
            total += n
          }
          if (total > 0) yield* Effect.logInfo("memory: embedded items without a vector").pipe(Effect.annotateLogs({ items: total }))
        }))
      }

      return Memory.of({ create, get, list, update, delete: remove, forget, search, searchWithStats, embedMissing })
    })
  )

  /**
   * Wired: storage ({@link MemoryRepo}, migrated) and the event bus. Needs a
   * `SqlClient` and `DomainEvents` (the composition root provides it, with
   * the audit chain subscribed).
   */
  static readonly layer = Memory.layerNoDeps.pipe(
    Layer.provide(MemoryRepo.layer),
    Layer.provide(MemoryVectorRepo.layer),
    Layer.provide(MemoryEmbedder.layerFromSettings),
    Layer.provide(EventBus.layer)
  )
}
