/**
 * The semantic backfill across restarts, on one database (a SQLite file;
 * a shared PostgreSQL schema when SVC_TEST_DATABASE_URL is set): items
 * written with semantic search off are embedded in the background when a
 * gateway starts with it on, and a change of embedder remakes the vector
 * table for the new space and embeds every item again. Polls with the live
 * clock (the backfill runs on its own fiber) under a generous deadline.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { storageLayer } from "../../../layers/storage/Storage.ts"
import { BUILTIN_MODEL_ID, BuiltinEmbeddings } from "../../../services/memory/embeddings/builtin.ts"
import { MemoryEmbedder } from "../../../services/memory/embeddings/MemoryEmbedder.ts"
import { Memory } from "../../../services/memory/Memory.ts"
import { postgresUrl, sharedPostgresSchema, type TestDatabase } from "../../support/databases.ts"
import { memoryLayer } from "./support.ts"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Polls `check` every 20 ms (live clock) until it holds; dies after 10 s. */
const until = <E, R>(what: string, check: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (!(yield* check)) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("20 millis")
    }
  })

const space = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ model_id: string; dimensions: number | string; n: number | string }>`
    SELECT s.model_id, s.dimensions, (SELECT count(*) FROM memory_vectors) AS n FROM memory_vector_space s`
  return rows.map((r) => ({ model_id: r.model_id, dimensions: Number(r.dimensions), vectors: Number(r.n) }))
})

const scenario = (db: TestDatabase) =>
  Effect.gen(function*() {
    const run = <A, E>(embedder: Layer.Layer<MemoryEmbedder>, effect: Effect.Effect<A, E, Memory | SqlClient.SqlClient>) =>
      Effect.scoped(effect.pipe(Effect.provide(memoryLayer(db, embedder))))
    const found = (query: string, id: string) =>
      Effect.gen(function*() {
        const hits = (yield* (yield* Memory).search({ query })).hits
        return hits.some((h) => h.memory_item_id === id)
      })

    // semantic search off: no vectors
    const cluster = yield* run(MemoryEmbedder.off, Effect.gen(function*() {
      const memory = yield* Memory
      yield* memory.create({ kind: "note", title: "Garden", body_md: "Roses and tulips." })
      return (yield* memory.create({ kind: "note", title: "Kubernetes cluster", body_md: "Control plane." })).item.memory_item_id
    }))

    // on: the start embeds both in the background
    yield* run(MemoryEmbedder.builtin(), Effect.gen(function*() {
      yield* until("the backfill", found("kuberntes", cluster))
      expect(yield* space).toEqual([{ model_id: BUILTIN_MODEL_ID, dimensions: 256, vectors: 2 }])
    }))

    // another embedder: the table is made again for it and every item embedded again
    const other = MemoryEmbedder.fromModel("test:other-model").pipe(Layer.provide(BuiltinEmbeddings))
    yield* run(other, Effect.gen(function*() {
      yield* until("the new space", Effect.map(space, (s) => s[0]?.model_id === "test:other-model" && s[0].vectors === 2))
      expect(yield* found("kuberntes", cluster)).toBe(true)
    }))
  })

describe("semantic backfill", () => {
  it.live("sqlite (file): embeds items written while off, and again after a change of embedder", () =>
    Effect.gen(function*() {
      const directory = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-memory-backfill-"))),
        (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
      )
      const make = () => storageLayer({ kind: "sqlite", filename: join(directory, "m.db") })
      yield* scenario({ name: "sqlite (file)", kind: "sqlite", layer: make(), make })
    }).pipe(Effect.scoped))

  it.live.skipIf(postgresUrl === undefined)("postgresql (shared schema): the same", () =>
    Effect.gen(function*() {
      const shared = yield* Effect.acquireRelease(
        Effect.promise(() => sharedPostgresSchema(postgresUrl!)),
        (s) => Effect.promise(() => s.drop())
      )
      yield* scenario({ name: "postgresql", kind: "postgres", layer: shared.layer(), make: shared.layer })
    }).pipe(Effect.scoped))
})
