/**
 * Memory persistence (tables `memory_items`, `memory_tombstones`;
 * services/memory/migrations) over `SqlClient`, the same interface on SQLite
 * and PostgreSQL. Every read names the agent: an item of one agent is never
 * read, changed or deleted through another's. Listings are keyset pages
 * (newest first: `created_at`, then `memory_item_id`, descending); keyword
 * search ranks with FTS5 `bm25` on SQLite and `ts_rank_cd` on PostgreSQL
 * (docs/memory.md "Search").
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { migrate } from "../../layers/storage/migrations.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { repositoryEdge, transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"
import { filterClauses, type MemoryRowFilter } from "./filters.ts"
import { memoryMigrations } from "./migrations/index.ts"
import { itemColumns } from "./itemColumns.ts"
import { postgresSearch, sqliteSearch } from "./searchStatement.ts"
import { MemoryItemRow, MemoryTombstoneRow } from "./records.ts"
import type { MemoryDeletedBy, MemoryForgetSelector } from "./schema.ts"

export type { MemoryRowFilter } from "./filters.ts"

/** The columns of an item a search hit carries (a hit names the item; it does not hold it). */
export type MemorySearchItem = Pick<MemoryItemRow, "memory_item_id" | "kind" | "provenance">

/**
 * A search hit as stored: the item's id, kind and provenance, its rank in 0..1 (higher is better) and a snippet
 * (matches in `[…]`). The search reads only these columns: every matching row goes through the ranking sort, so
 * each column selected is copied once per match, not once per hit (docs/memory.md "Search").
 */
export interface MemorySearchRow {
  readonly row: MemorySearchItem
  readonly score: number
  readonly snippet: string | undefined
}

/** A deletion: when, by whom and why. */
export interface MemoryDeletion {
  readonly at: string
  readonly by: MemoryDeletedBy
  readonly reason: string | undefined
}

/** The words of a search query (letters and digits); the rest is ignored, so no query is a syntax error. */
export const queryWords = (query: string): ReadonlyArray<string> =>
  [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, 32)

/** Most ids one delete statement names (5 parameters a tombstone row: far below SQLite's and PostgreSQL's limits). */
const REMOVE_CHUNK = 500

/** Repository of memory items and tombstones. */
export class MemoryRepo extends Context.Service<MemoryRepo, {
  /** Stores a new item row. */
  readonly insert: (row: MemoryItemRow) => Effect.Effect<void>
  /**
   * The agent's item, or `undefined`. With `lock` (inside a transaction) the row stays locked until it ends on
   * PostgreSQL (`FOR UPDATE`), so concurrent patches apply one after the other; SQLite's writer lock does the same.
   */
  readonly get: (agentId: string, id: string, options?: { readonly lock?: boolean }) => Effect.Effect<MemoryItemRow | undefined>
  /** Replaces the agent's item with `row` (same id); `undefined` when it no longer exists. */
  readonly replace: (row: MemoryItemRow) => Effect.Effect<MemoryItemRow | undefined>
  /** At most `limit` rows matching `filter`, newest first, strictly after `after` (the previous page's last row). */
  readonly list: (
    filter: MemoryRowFilter,
    after: { readonly createdAt: string; readonly id: string } | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<MemoryItemRow>>
  /** Rows matching any word of `words` and `filter`, best first (ties by id), `limit` from `offset`. */
  readonly search: (
    filter: MemoryRowFilter,
    words: ReadonlyArray<string>,
    offset: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<MemorySearchRow>>
  /** Ids of the agent's items any selector matches, sorted. */
  readonly select: (agentId: string, selectors: ReadonlyArray<MemoryForgetSelector>) => Effect.Effect<ReadonlyArray<string>>
  /** Deletes the agent's items `ids` and stores their tombstones; returns the tombstones of those that existed. */
  readonly remove: (
    agentId: string,
    ids: ReadonlyArray<string>,
    deletion: MemoryDeletion
  ) => Effect.Effect<ReadonlyArray<MemoryTombstoneRow>>
  /** The agent's tombstones, oldest deletion first (ties by id). */
  readonly tombstones: (agentId: string) => Effect.Effect<ReadonlyArray<MemoryTombstoneRow>>
  /** Runs `effect` in one transaction. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("svc-gateway/memory/MemoryRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the memory migrations first. */
  static readonly layer = Layer.effect(
    MemoryRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("memory", memoryMigrations)
      const postgres = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
      const encodeRow = Schema.encodeEffect(MemoryItemRow)
      const itemRows = findRows(MemoryItemRow)
      const columns = itemColumns(sql, "m")

      const clauses = (filter: MemoryRowFilter) => filterClauses(sql, postgres, filter)

      const insert = (row: MemoryItemRow) =>
        Effect.flatMap(encodeRow(row), (encoded) => sql`INSERT INTO memory_items ${sql.insert(encoded)}`)

      const get = (agentId: string, id: string, options?: { readonly lock?: boolean }) =>
        Effect.map(
          itemRows(sql`SELECT ${columns} FROM memory_items m WHERE m.agent_id = ${agentId} AND m.memory_item_id = ${id}${
            options?.lock === true && postgres ? sql` FOR UPDATE` : sql``
          }`),
          (rows) => rows[0]
        )

      const replace = (row: MemoryItemRow) =>
        Effect.gen(function*() {
          const { memory_item_id, agent_id, ...rest } = yield* encodeRow(row)
          const updated = yield* itemRows(sql`UPDATE memory_items SET ${sql.update(rest)}
            WHERE memory_item_id = ${memory_item_id} AND agent_id = ${agent_id} RETURNING ${itemColumns(sql)}`)
          return updated[0]
        })

      const list = (
        filter: MemoryRowFilter,
        after: { readonly createdAt: string; readonly id: string } | undefined,
        limit: number
      ) => {
        const where = clauses(filter)
        if (after !== undefined) {
          where.push(sql`(m.created_at < ${after.createdAt} OR (m.created_at = ${after.createdAt} AND m.memory_item_id < ${after.id}))`)
        }
        return itemRows(sql`SELECT ${columns} FROM memory_items m WHERE ${sql.and(where)}
          ORDER BY m.created_at DESC, m.memory_item_id DESC LIMIT ${limit}`)
      }

      const Ranked = Schema.Struct({
        memory_item_id: MemoryItemRow.fields.memory_item_id,
        kind: MemoryItemRow.fields.kind,
        provenance: MemoryItemRow.fields.provenance,
        score: Schema.Union([Schema.Number, Schema.NumberFromString]),
        snippet: Schema.NullOr(Schema.String)
      })
      const rankedRows = findRows(Ranked)
      const toHit = ({ score, snippet, ...row }: typeof Ranked.Type): MemorySearchRow => ({
        row,
        // bm25 and ts_rank_cd grow without bound; r / (1 + r) maps them onto 0..1, keeping the order.
        score: score > 0 ? score / (1 + score) : 0,
        snippet: snippet === null || snippet === "" ? undefined : snippet
      })

      const search = (filter: MemoryRowFilter, words: ReadonlyArray<string>, offset: number, limit: number) => {
        if (words.length === 0) return Effect.succeed([])
        const where = clauses(filter)
        // The agent's clause comes first and alone when the request filters on nothing else.
        const input = { where, agentOnly: where.length === 1, words, offset, limit }
        const statement = postgres ? postgresSearch(sql, input) : sqliteSearch(sql, input)
        return Effect.map(rankedRows(statement), (rows) => rows.map(toHit))
      }

      const select = (agentId: string, selectors: ReadonlyArray<MemoryForgetSelector>) => {
        const any = selectors.map((s): Statement.Fragment => {
          switch (s.kind) {
            case "id":
              return sql`m.memory_item_id = ${s.memory_item_id}`
            case "key":
              return sql`m.fact_key = ${s.key}`
            case "tag":
              return postgres
                ? sql`(m.tags::jsonb @> ${JSON.stringify([s.tag])}::jsonb)`
                : sql`EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = ${s.tag})`
            case "provenance":
              return sql`m.source_kind = ${s.source_kind}`
          }
        })
        return Effect.map(
          findRows(Schema.Struct({ memory_item_id: Schema.String }))(
            sql`SELECT m.memory_item_id FROM memory_items m WHERE m.agent_id = ${agentId} AND ${sql.or(any)}
              ORDER BY m.memory_item_id`
          ),
          (rows) => rows.map((r) => r.memory_item_id)
        )
      }

      const removeChunk = (agentId: string, ids: ReadonlyArray<string>, deletion: MemoryDeletion) =>
        Effect.gen(function*() {
          const deleted = yield* findRows(Schema.Struct({ memory_item_id: Schema.String }))(
            sql`DELETE FROM memory_items WHERE agent_id = ${agentId} AND ${sql.in("memory_item_id", ids)} RETURNING memory_item_id`
          )
          if (deleted.length === 0) return [] as ReadonlyArray<MemoryTombstoneRow>
          const tombstones: Array<MemoryTombstoneRow> = deleted.map((d) => ({
            memory_item_id: d.memory_item_id,
            agent_id: agentId,
            deleted_at: deletion.at,
            deleted_by: deletion.by,
            reason: deletion.reason ?? null
          }))
          // An id deleted before (then re-imported) keeps one tombstone: the latest.
          yield* sql`DELETE FROM memory_tombstones WHERE ${sql.in("memory_item_id", tombstones.map((t) => t.memory_item_id))}`
          yield* sql`INSERT INTO memory_tombstones ${sql.insert(tombstones as unknown as [Record<string, unknown>, ...Array<Record<string, unknown>>])}`
          return tombstones
        })

      /** Deletes in chunks of {@link REMOVE_CHUNK} ids (statement parameter limits); tombstones sorted by id. */
      const remove = (agentId: string, ids: ReadonlyArray<string>, deletion: MemoryDeletion) =>
        Effect.gen(function*() {
          const all: Array<MemoryTombstoneRow> = []
          for (let i = 0; i < ids.length; i += REMOVE_CHUNK) {
            all.push(...(yield* removeChunk(agentId, ids.slice(i, i + REMOVE_CHUNK), deletion)))
          }
          return all.sort((a, b) => (a.memory_item_id < b.memory_item_id ? -1 : a.memory_item_id > b.memory_item_id ? 1 : 0))
        })

      return MemoryRepo.of(repositoryEdge("MemoryRepo", {
        insert: (row) => Effect.asVoid(insert(row)),
        get,
        replace,
        list,
        search,
        select,
        remove,
        tombstones: (agentId) =>
          findRows(MemoryTombstoneRow)(
            sql`SELECT * FROM memory_tombstones WHERE agent_id = ${agentId} ORDER BY deleted_at, memory_item_id`
          ),
        transaction: transactionAtEdge(sql.withTransaction)
      }))
    })
  )
}

