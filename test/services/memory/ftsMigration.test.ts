/**
 * SQLite's keyword index keyed by `memory_items.rowid` (memory migration 2):
 * a database made by migration 1 (with items in it) is migrated and its
 * index rebuilt, searches find the same items, and updates and deletes keep
 * the external-content index equal to `memory_items` (FTS5's
 * `integrity-check` compares the two).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { migrate } from "../../../layers/storage/migrations.ts"
import { storageLayer } from "../../../layers/storage/Storage.ts"
import { Memory } from "../../../services/memory/Memory.ts"
import { memoryTables } from "../../../services/memory/migrations/0001_memory.ts"
import { MemoryItemRow, toRow } from "../../../services/memory/records.ts"
import type { MemoryItem } from "../../../services/memory/schema.ts"
import type { TestDatabase } from "../../support/databases.ts"
import { memoryLayer } from "./support.ts"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const item = (id: string, title: string, body: string): MemoryItem => ({
  v: 1,
  memory_item_id: id,
  agent_id: "default",
  kind: "note",
  title,
  body_md: body,
  tags: [],
  sensitivity: "private",
  provenance: { source_kind: "operator", refs: [] },
  created_at: "2026-01-01T00:00:00.000Z"
})

const integrity = (sql: SqlClient.SqlClient) =>
  sql`INSERT INTO memory_items_fts (memory_items_fts, rank) VALUES ('integrity-check', 1)`

describe("memory FTS keyed by rowid (SQLite)", () => {
  it.effect("migrates a migration-1 database, rebuilding the index, and keeps it equal to the items", () =>
    Effect.gen(function*() {
      const directory = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-memory-fts-"))),
        (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
      )
      const file: TestDatabase = {
        name: "sqlite (file)",
        kind: "sqlite",
        layer: storageLayer({ kind: "sqlite", filename: join(directory, "m.db") }),
        make: () => storageLayer({ kind: "sqlite", filename: join(directory, "m.db") })
      }
      const ids = ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"]
      // A database as migration 1 left it, with items indexed by its triggers.
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* migrate("memory", [memoryTables])
        const rows = [item(ids[0], "Kubernetes upgrade", "control plane"), item(ids[1], "Garden", "roses and kubernetes")]
        for (const row of rows) {
          const encoded = yield* Schema.encodeEffect(MemoryItemRow)(toRow(row))
          yield* sql`INSERT INTO memory_items ${sql.insert(encoded)}`
        }
      }).pipe(Effect.provide(file.make()))

      // The memory service migrates (migration 2) and searches the rebuilt index.
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const memory = yield* Memory
        expect((yield* memory.search({ query: "kubernetes" })).hits.map((h) => h.memory_item_id)).toEqual(ids)
        const columns = yield* sql<{ name: string }>`SELECT name FROM pragma_table_info('memory_items_fts')`
        expect(columns.map((c) => c.name)).toEqual(["search_title", "search_body", "search_tags"])
        yield* integrity(sql)

        yield* memory.update(ids[1], { title: "Greenhouse", body_md: "tomatoes" })
        yield* integrity(sql)
        expect((yield* memory.search({ query: "kubernetes" })).hits.map((h) => h.memory_item_id)).toEqual([ids[0]])
        expect((yield* memory.search({ query: "tomatoes" })).hits.map((h) => h.memory_item_id)).toEqual([ids[1]])
        yield* memory.update(ids[1], { tags: ["veg"] })
        yield* integrity(sql)
        expect((yield* memory.search({ query: "veg" })).hits.map((h) => h.memory_item_id)).toEqual([ids[1]])
        yield* memory.delete(ids[0])
        yield* memory.forget({ confirm: "FORGET", selectors: [{ kind: "tag", tag: "veg" }] })
        yield* integrity(sql)
        expect((yield* memory.search({ query: "kubernetes tomatoes veg" })).hits).toEqual([])
        const [{ n }] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM memory_items_fts_docsize`
        expect(n).toBe(0)
      }).pipe(Effect.provide(memoryLayer(file)))
    }))
})
