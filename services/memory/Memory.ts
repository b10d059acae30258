/**
 * Agent memory (gateway-api.md `memory.*`; reference §5.3; docs/memory.md):
 * items of four kinds per agent, listed with filters and keyset cursors,
 * searched by keyword with ranking, patched within their kind, deleted and
 * forgotten with tombstones.
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
import { MemoryRepo, queryWords } from "./MemoryRepo.ts"
import { toItem, toRow, toTombstone } from "./records.ts"
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
  /** Ranked keyword search, best first; `InvalidRequest` "invalid cursor". */
  readonly search: (request: MemorySearchRequest) => Effect.Effect<MemorySearchResult, InvalidRequest>
}>()("svc-gateway/memory/Memory") {
  /** Needs {@link MemoryRepo}, `EventBus`, `DomainEvents` (publishes `Decision`) and a `SqlClient` (after-commit announcements). */
  static readonly layerNoDeps = Layer.effect(
    Memory,
    Effect.gen(function*() {
      const repo = yield* MemoryRepo
      const events = yield* EventBus
      const domainEvents = yield* DomainEvents
      const sql = yield* SqlClient.SqlClient
      const now = Effect.map(Clock.currentTimeMillis, isoTime)

      const decided = (action: { readonly type: string; readonly [field: string]: unknown }) =>
        domainEvents.publish(Decision, { chain: MEMORY_CHAIN, action })
      /** Publishes once the caller's transaction commits (at once outside one). */
      const announce = (effect: Effect.Effect<unknown>) => sql.afterCommit(effect)

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
        yield* repo.transaction(Effect.gen(function*() {
          yield* repo.insert(toRow(item))
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
        return yield* repo.transaction(Effect.gen(function*() {
          const row = yield* repo.get(agent, id, { lock: true })
          if (row === undefined) return yield* itemNotFound()
          const current = toItem(row)
          const foreign = foreignPatchFields(current.kind, patch)
          if (foreign.length > 0) return yield* incompatiblePatch(current.kind, foreign)
          const { provenance, tags, ...rest } = patch
          const item = {
            ...current,
            ...rest,
            ...(tags !== undefined ? { tags: [...new Set(tags)] } : {}),
            ...(provenance !== undefined ? { provenance: { ...provenance, refs: provenance.refs ?? [] } } : {}),
            updated_at: yield* now
          } as MemoryItem
          const replaced = yield* repo.replace(toRow(item))
          if (replaced === undefined) return yield* itemNotFound()
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

      const search = Effect.fn("Memory.search")(function*(request: MemorySearchRequest) {
        const agentId = agentOf(request.filter)
        const digest = searchDigest(agentId, request.query, request.filter)
        const offset = request.cursor === undefined ? 0 : searchCursor.decode(request.cursor, digest)
        if (offset === undefined) return yield* invalidCursor()
        const limit = clampLimit(request.limit)
        const rows = yield* repo.search({ agentId, filter: request.filter }, queryWords(request.query), offset, limit + 1)
        const hits = rows.slice(0, limit).map(({ row, score, snippet }) => ({
          memory_item_id: row.memory_item_id,
          kind: row.kind,
          score,
          ...(snippet !== undefined ? { snippet } : {}),
          provenance: row.provenance
        }))
        return rows.length > limit
          ? { v: 1, hits, next_cursor: searchCursor.encode(digest, offset + limit) } as const
          : { v: 1, hits } as const
      })

      return Memory.of({ create, get, list, update, delete: remove, forget, search })
    })
  )

  /**
   * Wired: storage ({@link MemoryRepo}, migrated) and the event bus. Needs a
   * `SqlClient` and `DomainEvents` (the composition root provides it, with
   * the audit chain subscribed).
   */
  static readonly layer = Memory.layerNoDeps.pipe(
    Layer.provide(MemoryRepo.layer),
    Layer.provide(EventBus.layer)
  )
}
