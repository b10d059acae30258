/**
 * PostgreSQL's stored search document (memory migration 4; runs when
 * SVC_TEST_DATABASE_URL is set): a database as migration 3 left it, with
 * items in it, is migrated; the search then reads `search_document` and
 * finds the same items in the same order with the same scores as the
 * expression the GIN index covered before; writes keep the column current;
 * a snapshot neither exports nor needs the generated column, and a bundle
 * of `memory_items` imports into a fresh database whose search finds it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { migrate } from "../../../layers/storage/migrations.ts"
import { Memory } from "../../../services/memory/Memory.ts"
import { MEMORY_ITEM_COLUMNS } from "../../../services/memory/itemColumns.ts"
import { memoryTables, POSTGRES_DOCUMENT } from "../../../services/memory/migrations/0001_memory.ts"
import { memoryFtsRowid } from "../../../services/memory/migrations/0002_fts_rowid.ts"
import { memoryVectorSpace } from "../../../services/memory/migrations/0003_vector_space.ts"
import { MemoryItemRow, toRow } from "../../../services/memory/records.ts"
import type { MemoryItem } from "../../../services/memory/schema.ts"
import { SNAPSHOT_FORMAT } from "../../../services/snapshots/schema.ts"
import { Snapshots } from "../../../services/snapshots/Snapshots.ts"
import { SnapshotTableSet } from "../../../services/snapshots/tableSet.ts"
import { GatewayTableSet } from "../../../src/app/tables.ts"
import { postgres, postgresUrl, sharedPostgresSchema } from "../../support/databases.ts"
import { memoryLayer } from "./support.ts"

const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`

const note = (n: number, title: string, body: string, tags: ReadonlyArray<string> = []): MemoryItem => ({
  v: 1,
  memory_item_id: id(n),
  agent_id: "default",
  kind: "note",
  title,
  body_md: body,
  tags: [...tags],
  sensitivity: "private",
  provenance: { source_kind: "operator", refs: [] },
  created_at: `2026-01-0${n}T00:00:00.000Z`
})

const items = [
  note(1, "Kubernetes upgrade", "control plane first, then the kubernetes nodes"),
  note(2, "Garden", "roses, and a note about kubernetes"),
  note(3, "Cluster", "nodes and pods", ["kubernetes"]),
  note(4, "Groceries", "milk and bread")
]

/** The ranking as migration 1's statement computed it: ids and raw `ts_rank_cd`, best first. */
const rankedByExpression = (sql: SqlClient.SqlClient, query: string) =>
  sql<{ memory_item_id: string; score: number | string }>`
    SELECT memory_item_id, ts_rank_cd(${sql.literal(POSTGRES_DOCUMENT)}, to_tsquery('english', ${query}), 0) AS score
    FROM memory_items WHERE ${sql.literal(POSTGRES_DOCUMENT)} @@ to_tsquery('english', ${query})
    ORDER BY score DESC, memory_item_id`

const searchDocument = (sql: SqlClient.SqlClient, memoryItemId: string) =>
  Effect.map(
    sql<{ document: string }>`SELECT search_document::text AS document FROM memory_items WHERE memory_item_id = ${memoryItemId}`,
    (rows) => rows[0]?.document
  )

describe.skipIf(postgresUrl === undefined)("memory search document (PostgreSQL, migration 4)", () => {
  it.live("migrates a migration-3 database: same hits, order and scores; writes keep the column current", () =>
    Effect.gen(function*() {
      const shared = yield* Effect.acquireRelease(
        Effect.promise(() => sharedPostgresSchema(postgresUrl!)),
        (s) => Effect.promise(() => s.drop())
      )
      // A database as migration 3 left it, with items (the GIN index over the expression).
      const before = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* migrate("memory", [memoryTables, memoryFtsRowid, memoryVectorSpace])
        for (const item of items) {
          const encoded = yield* Schema.encodeEffect(MemoryItemRow)(toRow(item))
          yield* sql`INSERT INTO memory_items ${sql.insert(encoded)}`
        }
        return yield* rankedByExpression(sql, "kubernetes")
      }).pipe(Effect.provide(shared.layer()))
      expect(before.map((r) => r.memory_item_id).sort()).toEqual([id(1), id(2), id(3)])

      const layer = memoryLayer({ name: "postgresql", kind: "postgres", layer: shared.layer(), make: shared.layer })
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const memory = yield* Memory
        const indexes = yield* sql<{ indexname: string; indexdef: string }>`
          SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'memory_items'`
        expect(indexes.map((i) => i.indexname)).toContain("memory_items_search_document_idx")
        expect(indexes.map((i) => i.indexname)).not.toContain("memory_items_search_idx")

        // The search reads the stored column: same items, order and scores (r / (1 + r)) as the expression gave.
        const hits = (yield* memory.search({ query: "kubernetes" })).hits
        expect(hits.map((h) => h.memory_item_id)).toEqual(before.map((r) => r.memory_item_id))
        expect(hits.map((h) => h.score)).toEqual(before.map((r) => Number(r.score) / (1 + Number(r.score))))
        expect(yield* rankedByExpression(sql, "kubernetes")).toEqual(before)

        // Writes: the server derives the column again (an update, a create); the gateway never writes it.
        yield* memory.update(id(2), { title: "Greenhouse", body_md: "tomatoes" })
        expect(yield* searchDocument(sql, id(2))).toContain("'tomato'")
        expect((yield* memory.search({ query: "kubernetes" })).hits.map((h) => h.memory_item_id)).not.toContain(id(2))
        expect((yield* memory.search({ query: "tomatoes" })).hits.map((h) => h.memory_item_id)).toEqual([id(2)])
        const created = (yield* memory.create({ kind: "note", title: "Helm", body_md: "charts" })).item
        expect(yield* searchDocument(sql, created.memory_item_id)).toContain("'helm':1A")
        // Reads of items name their columns: the document is not part of an item.
        expect(Object.keys((yield* memory.get(created.memory_item_id)).item)).not.toContain("search_document")
      }).pipe(Effect.provide(layer))
    }).pipe(Effect.scoped))

  it.live("snapshots leave the generated column out; a bundle of memory_items imports and is searchable", () =>
    Effect.gen(function*() {
      /** Memory and snapshots on one fresh database. */
      const withSnapshots = () =>
        Snapshots.layerNoDeps.pipe(Layer.provide(SnapshotTableSet.layer(GatewayTableSet)), Layer.provideMerge(memoryLayer(postgres!)))
      const bundle = yield* Effect.gen(function*() {
        const memory = yield* Memory
        yield* memory.create({ kind: "note", title: "Kubernetes upgrade", body_md: "control plane first" })
        yield* memory.create({ kind: "fact", key: "editor", value: "helix", observed_at: "2026-01-01T00:00:00Z", confidence: 1 })
        return yield* Effect.flatMap(Snapshots, (s) => s.exportBundle(["memory_items"]))
      }).pipe(Effect.provide(withSnapshots()))
      // The bundle carries the row schema's columns only: what a gateway before migration 4 exported too.
      expect(bundle.tables.memory_items!.columns).toEqual(MEMORY_ITEM_COLUMNS)
      expect(bundle.tables.memory_items!.rows).toHaveLength(2)

      yield* Effect.gen(function*() {
        const imported = yield* Effect.flatMap(Snapshots, (s) =>
          s.importBundle({ confirm: "IMPORT", bundle: { format: SNAPSHOT_FORMAT, tables: { memory_items: bundle.tables.memory_items! } } }))
        expect(imported.inserted_by_table).toEqual({ memory_items: 2 })
        const hits = (yield* (yield* Memory).search({ query: "kubernetes" })).hits
        expect(hits.map((h) => h.kind)).toEqual(["note"])
        expect((yield* (yield* Memory).search({ query: "helix" })).hits.map((h) => h.kind)).toEqual(["fact"])
      }).pipe(Effect.provide(withSnapshots()))
    }).pipe(Effect.scoped))
})
