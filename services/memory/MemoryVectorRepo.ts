/**
 * Memory's vectors in the database (docs/memory.md "Semantic search"): one
 * embedding per item in `memory_vectors`, made for one vector space (the
 * embedder's model and dimensions, `memory_vector_space`), searched by
 * cosine similarity within one agent's items and the search's filter.
 *
 * Storage, by database:
 * - **SQLite** (`libsql`): libsql's native vectors, an `F32_BLOB(<dims>)`
 *   column with a `libsql_vector_idx` (DiskANN, cosine) index, searched with
 *   `vector_top_k`. The index holds every agent's vectors: a search takes the
 *   {@link SQLITE_TOP_K} nearest of all and keeps the agent's (and the
 *   filter's), so an agent whose items are few among many others' may see
 *   fewer semantic hits than it has near items; the keyword hits and the
 *   agent's {@link SQLITE_EXACT_WINDOW} most recent items are compared
 *   exactly as well.
 * - **PostgreSQL with pgvector** (`pgvector`): a `vector(<dims>)` column with
 *   an HNSW cosine index (up to 2000 dimensions), ordered by `<=>`.
 * - **PostgreSQL without it** (`real[]`): a `real[]` column; the cosine is
 *   computed in the gateway over the search's candidates: the keyword
 *   search's hits plus the agent's {@link RECENT_WINDOW} most recent items
 *   (matching the filter), so an older item is found semantically only when
 *   it is among the keyword hits.
 *
 * The vectors' table is made when the first vector of a space is stored,
 * and remade (empty) when the space changes; its rows reference
 * `memory_items` with `ON DELETE CASCADE` (a snapshot restore, a manual
 * delete), and the memory service removes an item's vector itself just
 * before deleting the item. Vectors are bound as text (`[x, y, …]`), never as
 * blobs. Items without a vector (written while semantic search was off, or
 * when the embedder failed) are listed by {@link MemoryVectorRepo} `missing` for
 * the backfill.
 *
 * @module
 */
import { Context, Effect, Layer, Ref, Schema, Semaphore } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { migrate } from "../../layers/storage/migrations.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { filterClauses, type MemoryRowFilter } from "./filters.ts"
import { memoryMigrations } from "./migrations/index.ts"
import { itemColumns } from "./itemColumns.ts"
import { MemoryItemRow } from "./records.ts"

/** How vectors are stored: libsql native vectors, pgvector, or a plain `real[]` column (PostgreSQL without pgvector). */
export type VectorStorage = "libsql" | "pgvector" | "real[]"

/** A vector space: the embedder's identity and its vectors' length. */
export interface VectorSpace {
  readonly modelId: string
  readonly dimensions: number
}

/** A vector hit: the item's row and its cosine similarity to the query (-1..1, higher is nearer). */
export interface VectorHit {
  readonly row: MemoryItemRow
  readonly similarity: number
}

/** How many nearest vectors of all agents SQLite's `vector_top_k` returns before the agent and filter are applied. */
export const SQLITE_TOP_K = 2000
/**
 * SQLite: how many of the agent's most recent items are compared exactly besides the index's nearest and the
 * keyword hits.
 */
export const SQLITE_EXACT_WINDOW = 200
/** `real[]` storage: how many of the agent's most recent items are candidates besides the keyword hits. */
export const RECENT_WINDOW = 1000
/** Largest dimension count pgvector's HNSW index takes (larger vectors are searched without an index). */
const HNSW_MAX_DIMENSIONS = 2000

/** A vector as the text SQL casts (`vector32(?)`, `?::vector`): `[x,y,…]`. */
const vectorText = (vector: ReadonlyArray<number>): string => `[${vector.join(",")}]`

/** Cosine similarity of two vectors of the same length (0 when either is all zeros). */
export const cosine = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i]
    na += a[i] * a[i]
    nb += b[i] * b[i]
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

/** The stored vectors of memory items. */
export class MemoryVectorRepo extends Context.Service<MemoryVectorRepo, {
  /** Stores (or replaces) the vector of item `id` in `space` (making or remaking the table for it first). */
  readonly put: (space: VectorSpace, id: string, vector: ReadonlyArray<number>) => Effect.Effect<void>
  /**
   * Removes the vectors of the items `ids`, if any: an item whose text changed and is not embedded yet, or items
   * about to be deleted (before the delete: the `ON DELETE CASCADE` of a `DELETE … RETURNING` leaves libsql's index
   * with unreachable nodes).
   */
  readonly drop: (ids: ReadonlyArray<string>) => Effect.Effect<void>
  /**
   * The items of `filter` nearest to `vector` in `space`, at least `minSimilarity`, best first (ties by id), at most
   * `limit`; `candidates` are the keyword hits (used by `real[]` storage). Nothing when the stored space is another.
   */
  readonly nearest: (
    space: VectorSpace,
    filter: MemoryRowFilter,
    vector: ReadonlyArray<number>,
    options: { readonly limit: number; readonly minSimilarity: number; readonly candidates: ReadonlyArray<string> }
  ) => Effect.Effect<ReadonlyArray<VectorHit>>
  /** Up to `limit` items (oldest first) without a vector of the model `modelId`. */
  readonly missing: (modelId: string, limit: number) => Effect.Effect<ReadonlyArray<MemoryItemRow>>
  /** The storage this database uses (detected once: PostgreSQL tries to enable pgvector when it is available). */
  readonly storage: Effect.Effect<VectorStorage>
}>()("svc-gateway/memory/MemoryVectorRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the memory migrations first. */
  static readonly layer = Layer.effect(
    MemoryVectorRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("memory", memoryMigrations)
      const postgres = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
      const Space = Schema.Struct({ model_id: Schema.String, dimensions: Schema.Number, storage: Schema.String })
      const spaceRows = findRows(Space)
      /** The space the table holds, as last read or made by this gateway. */
      const current = yield* Ref.make<(VectorSpace & { readonly storage: VectorStorage }) | undefined>(undefined)
      const lock = yield* Semaphore.make(1)

      const detect: Effect.Effect<VectorStorage, SqlError> = Effect.gen(function*() {
        if (!postgres) return "libsql" as const
        const installed = yield* sql`SELECT 1 AS one FROM pg_extension WHERE extname = 'vector'`
        if (installed.length > 0) return "pgvector" as const
        const available = yield* sql`SELECT 1 AS one FROM pg_available_extensions WHERE name = 'vector'`
        if (available.length === 0) return "real[]" as const
        return yield* sql`CREATE EXTENSION IF NOT EXISTS vector`.pipe(
          Effect.as("pgvector" as const),
          Effect.catch((error) =>
            Effect.as(
              Effect.logWarning("memory: pgvector is available but could not be enabled; vectors are stored as real[]").pipe(
                Effect.annotateLogs({ error: String(error) })
              ),
              "real[]" as const
            )
          )
        )
      })
      const storage = yield* Effect.cached(detect)

      const readSpace = Effect.map(
        spaceRows(sql`SELECT model_id, dimensions, storage FROM memory_vector_space WHERE id = 1`),
        (rows) => rows[0]
      )

      /** Makes `memory_vectors` for `space` unless it already holds it. */
      const ensure = (space: VectorSpace) =>
        lock.withPermits(1)(Effect.gen(function*() {
          const known = yield* Ref.get(current)
          if (known !== undefined && known.modelId === space.modelId && known.dimensions === space.dimensions) return
          const kind = yield* storage
          const stored = yield* readSpace
          if (stored === undefined || stored.model_id !== space.modelId || stored.dimensions !== space.dimensions || stored.storage !== kind) {
            if (!Number.isSafeInteger(space.dimensions) || space.dimensions < 1 || space.dimensions > 65_536) {
              return yield* Effect.die(new Error(`memory vectors: unusable dimension count ${space.dimensions}`))
            }
            const d = space.dimensions
            const statements = kind === "libsql"
              ? [
                `DROP TABLE IF EXISTS memory_vectors`,
                `CREATE TABLE memory_vectors (
                  vector_id INTEGER PRIMARY KEY,
                  memory_item_id TEXT NOT NULL UNIQUE REFERENCES memory_items (memory_item_id) ON DELETE CASCADE,
                  embedding F32_BLOB(${d}) NOT NULL
                )`,
                `CREATE INDEX memory_vectors_idx ON memory_vectors (libsql_vector_idx(embedding, 'metric=cosine'))`
              ]
              : [
                `DROP TABLE IF EXISTS memory_vectors`,
                `CREATE TABLE memory_vectors (
                  memory_item_id TEXT PRIMARY KEY REFERENCES memory_items (memory_item_id) ON DELETE CASCADE,
                  embedding ${kind === "pgvector" ? `vector(${d})` : "real[]"} NOT NULL
                )`,
                ...(kind === "pgvector" && d <= HNSW_MAX_DIMENSIONS
                  ? [`CREATE INDEX memory_vectors_idx ON memory_vectors USING hnsw (embedding vector_cosine_ops)`]
                  : [])
              ]
            yield* sql.withTransaction(Effect.gen(function*() {
              for (const statement of statements) yield* sql.unsafe(statement).unprepared
              yield* sql`DELETE FROM memory_vector_space`
              yield* sql`INSERT INTO memory_vector_space (id, model_id, dimensions, storage) VALUES (1, ${space.modelId}, ${d}, ${kind})`
            }))
            yield* Effect.logInfo("memory: vector table made for a new vector space").pipe(
              Effect.annotateLogs({ model_id: space.modelId, dimensions: d, storage: kind })
            )
          }
          yield* Ref.set(current, { ...space, storage: kind })
        }))

      /** The stored space when it is `space`, else `undefined` (nothing to search). */
      const matching = (space: VectorSpace) =>
        Effect.gen(function*() {
          const known = yield* Ref.get(current)
          if (known !== undefined && known.modelId === space.modelId && known.dimensions === space.dimensions) return known
          const stored = yield* readSpace
          if (stored === undefined || stored.model_id !== space.modelId || stored.dimensions !== space.dimensions) return undefined
          const kind = yield* storage
          if (stored.storage !== kind) return undefined
          const found = { ...space, storage: kind }
          yield* Ref.set(current, found)
          return found
        })

      const put = (space: VectorSpace, id: string, vector: ReadonlyArray<number>) =>
        Effect.gen(function*() {
          yield* ensure({ ...space, dimensions: vector.length })
          const kind = (yield* Ref.get(current))!.storage
          const value = kind === "libsql"
            ? sql`vector32(${vectorText(vector)})`
            : kind === "pgvector"
            ? sql`${vectorText(vector)}::vector`
            : sql`${`{${vector.join(",")}}`}::real[]`
          yield* sql`INSERT INTO memory_vectors (memory_item_id, embedding) VALUES (${id}, ${value})
            ON CONFLICT (memory_item_id) DO UPDATE SET embedding = excluded.embedding`
        })

      const drop = (ids: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          if (ids.length === 0 || (yield* readSpace) === undefined) return
          for (let i = 0; i < ids.length; i += 500) {
            yield* sql`DELETE FROM memory_vectors WHERE ${sql.in("memory_item_id", ids.slice(i, i + 500))}`
          }
        })

      const Similar = Schema.Struct({ ...MemoryItemRow.fields, similarity: Schema.Union([Schema.Number, Schema.NumberFromString]) })
      const similarRows = findRows(Similar)
      const WithVector = Schema.Struct({ ...MemoryItemRow.fields, embedding: Schema.Unknown })
      const withVectorRows = findRows(WithVector)
      const columns = itemColumns(sql, "m")
      const byRank = (a: VectorHit, b: VectorHit) =>
        b.similarity - a.similarity || (a.row.memory_item_id < b.row.memory_item_id ? -1 : a.row.memory_item_id > b.row.memory_item_id ? 1 : 0)

      /** A `real[]` value as read back: an array, or PostgreSQL's `{x,y,…}` text. */
      const numbers = (value: unknown): ReadonlyArray<number> =>
        Array.isArray(value)
          ? value.map(Number)
          : typeof value === "string"
          ? value.replace(/^\{|\}$/g, "").split(",").filter((x) => x !== "").map(Number)
          : []

      const nearest = (
        space: VectorSpace,
        filter: MemoryRowFilter,
        vector: ReadonlyArray<number>,
        options: { readonly limit: number; readonly minSimilarity: number; readonly candidates: ReadonlyArray<string> }
      ) =>
        Effect.gen(function*() {
          const found = yield* matching({ ...space, dimensions: vector.length })
          if (found === undefined) return []
          const where = filterClauses(sql, postgres, filter)
          const q = vectorText(vector)
          switch (found.storage) {
            case "libsql": {
              // The index's nearest, plus (exactly) the keyword hits and the agent's most recent items: libsql's
              // DiskANN graph can leave a few nodes unreachable after deletes and updates (seen on small graphs).
              const exact = [
                sql`m.memory_item_id IN (SELECT r.memory_item_id FROM memory_items r WHERE r.agent_id = ${filter.agentId}
                  ORDER BY r.created_at DESC, r.memory_item_id DESC LIMIT ${SQLITE_EXACT_WINDOW})`,
                ...(options.candidates.length > 0 ? [sql.in("m.memory_item_id", options.candidates)] : [])
              ]
              const rows = yield* similarRows(sql`WITH near (vector_id) AS (
                  SELECT id FROM vector_top_k('memory_vectors_idx', vector32(${q}), ${SQLITE_TOP_K})
                  UNION
                  SELECT v.vector_id FROM memory_vectors v JOIN memory_items m ON m.memory_item_id = v.memory_item_id
                  WHERE ${sql.or(exact)}
                )
                SELECT * FROM (
                  SELECT ${columns}, 1 - vector_distance_cos(v.embedding, vector32(${q})) AS similarity
                  FROM near JOIN memory_vectors v ON v.vector_id = near.vector_id
                  JOIN memory_items m ON m.memory_item_id = v.memory_item_id
                  WHERE ${sql.and(where)}
                ) WHERE similarity >= ${options.minSimilarity}
                ORDER BY similarity DESC, memory_item_id LIMIT ${options.limit}`)
              return rows.map(({ similarity, ...row }): VectorHit => ({ row, similarity }))
            }
            case "pgvector": {
              const rows = yield* similarRows(sql`SELECT ${columns}, 1 - (v.embedding <=> ${q}::vector) AS similarity
                FROM memory_vectors v JOIN memory_items m ON m.memory_item_id = v.memory_item_id
                WHERE ${sql.and(where)}
                ORDER BY v.embedding <=> ${q}::vector LIMIT ${options.limit}`)
              return rows
                .map(({ similarity, ...row }): VectorHit => ({ row, similarity }))
                .filter((hit) => hit.similarity >= options.minSimilarity)
                .sort(byRank)
            }
            case "real[]": {
              const recent = sql`SELECT r.memory_item_id FROM memory_items r WHERE r.agent_id = ${filter.agentId}
                ORDER BY r.created_at DESC, r.memory_item_id DESC LIMIT ${RECENT_WINDOW}`
              const candidates = options.candidates.length > 0
                ? sql`(m.memory_item_id IN (${recent}) OR ${sql.in("m.memory_item_id", options.candidates)})`
                : sql`m.memory_item_id IN (${recent})`
              const rows = yield* withVectorRows(sql`SELECT ${columns}, v.embedding
                FROM memory_vectors v JOIN memory_items m ON m.memory_item_id = v.memory_item_id
                WHERE ${sql.and([...where, candidates])}`)
              return rows
                .map(({ embedding, ...row }): VectorHit => ({ row, similarity: cosine(numbers(embedding), vector) }))
                .filter((hit) => hit.similarity >= options.minSimilarity)
                .sort(byRank)
                .slice(0, options.limit)
            }
          }
        })

      const missing = (modelId: string, limit: number) =>
        Effect.gen(function*() {
          const stored = yield* readSpace
          return yield* findRows(MemoryItemRow)(
            stored !== undefined && stored.model_id === modelId
              ? sql`SELECT ${columns} FROM memory_items m LEFT JOIN memory_vectors v ON v.memory_item_id = m.memory_item_id
                  WHERE v.memory_item_id IS NULL ORDER BY m.created_at, m.memory_item_id LIMIT ${limit}`
              : sql`SELECT ${columns} FROM memory_items m ORDER BY m.created_at, m.memory_item_id LIMIT ${limit}`
          )
        })

      return MemoryVectorRepo.of(repositoryEdge("MemoryVectorRepo", {
        put,
        drop,
        nearest,
        missing,
        storage: Effect.orDie(storage)
      }))
    })
  )
}
