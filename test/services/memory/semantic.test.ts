/**
 * Semantic memory search with the built-in embedder, on every test database
 * (SQLite with libsql's native vectors; PostgreSQL with pgvector when the
 * server has it, else `real[]` with the cosine computed in the gateway): a
 * query that shares no word with an item but many character 3-grams finds
 * it only with semantic search on; keyword and vector rankings fused by
 * reciprocal rank fusion (k = 60), each hit saying which matched it, and the
 * counts of both; pages with cursors; agent isolation and filters for
 * vector hits; vectors replaced on update and removed on delete and forget;
 * the backfill of items stored without a vector. Plus the fusion itself on
 * fixed rankings.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { BUILTIN_MODEL_ID, ngramEmbedding } from "../../../services/memory/embeddings/builtin.ts"
import { MemoryEmbedder } from "../../../services/memory/embeddings/MemoryEmbedder.ts"
import { fuseRankings, Memory } from "../../../services/memory/Memory.ts"
import { MemoryRepo, queryWords } from "../../../services/memory/MemoryRepo.ts"
import { MemoryVectorRepo } from "../../../services/memory/MemoryVectorRepo.ts"
import { toRow } from "../../../services/memory/records.ts"
import type { MemoryItem, MemoryItemInput } from "../../../services/memory/schema.ts"
import { testDatabases } from "../../support/databases.ts"
import { memoryLayer } from "./support.ts"

const note = (title: string, body: string, extra: Partial<MemoryItemInput> = {}): MemoryItemInput =>
  ({ kind: "note", title, body_md: body, ...extra }) as MemoryItemInput

const ids = (hits: ReadonlyArray<{ readonly memory_item_id: string }>) => hits.map((h) => h.memory_item_id)

describe("reciprocal rank fusion", () => {
  it("sums 1/(60 + rank) over the rankings, normalised so first in both is 1; ties by id", () => {
    const fused = fuseRankings(["a", "b", "c"], ["b", "d"])
    expect(fused.map((f) => f.id)).toEqual(["b", "a", "d", "c"])
    expect(fused[0]).toEqual({ id: "b", score: (1 / 62 + 1 / 61) / (2 / 61), matched: ["keyword", "semantic"] })
    expect(fused[1]).toEqual({ id: "a", score: 0.5, matched: ["keyword"] })
    expect(fused[2]).toEqual({ id: "d", score: (1 / 62) / (2 / 61), matched: ["semantic"] })
    expect(fuseRankings(["x"], ["x"])[0].score).toBe(1)
    // equal scores: by id
    expect(fuseRankings(["q"], ["p"]).map((f) => f.id)).toEqual(["p", "q"])
    expect(fuseRankings([], [])).toEqual([])
  })
})

for (const db of testDatabases) {
  describe(`semantic memory search on ${db.name}`, () => {
    const semantic = <A, E>(effect: Effect.Effect<A, E, any>) =>
      effect.pipe(Effect.provide(memoryLayer(db, MemoryEmbedder.builtin()))) as Effect.Effect<A, E>
    const keywordOnly = <A, E>(effect: Effect.Effect<A, E, any>) =>
      effect.pipe(Effect.provide(memoryLayer(db))) as Effect.Effect<A, E>

    const seed = Effect.gen(function*() {
      const memory = yield* Memory
      const cluster = (yield* memory.create(note("Kubernetes cluster", "Control plane on three nodes."))).item
      const garden = (yield* memory.create(note("Garden", "Roses and tulips in spring."))).item
      return { memory, cluster, garden }
    })

    it.effect("finds an item sharing no word with the query only with semantic search on", () =>
      Effect.gen(function*() {
        // "kuberntes" (a typo) shares no stem with "Kubernetes" but most of its 3-grams
        const off = yield* keywordOnly(Effect.gen(function*() {
          const { memory } = yield* seed
          return yield* memory.searchWithStats({ query: "kuberntes" })
        }))
        expect(off.result).toEqual({ v: 1, hits: [] })
        expect(off.stats).toEqual({ keyword_hits: 0, semantic_hits: 0 })

        yield* semantic(Effect.gen(function*() {
          const { cluster, memory } = yield* seed
          const on = yield* memory.searchWithStats({ query: "kuberntes" })
          expect(on.result.hits).toEqual([{
            memory_item_id: cluster.memory_item_id,
            kind: "note",
            score: 0.5,
            provenance: { source_kind: "operator", refs: [] },
            matched: ["semantic"]
          }])
          expect(on.stats).toEqual({ keyword_hits: 0, semantic_hits: 1 })
          // nothing to embed, nothing to match (the built-in embedding of "***" is all zeros)
          expect(yield* memory.searchWithStats({ query: "***" })).toEqual({ result: { v: 1, hits: [] }, stats: { keyword_hits: 0, semantic_hits: 0 } })
          // a keyword match keeps its snippet and says so
          const word = yield* memory.search({ query: "tulips" })
          expect(word.hits[0]).toMatchObject({ matched: ["keyword", "semantic"] })
          expect(word.hits[0].snippet?.toLowerCase()).toContain("[tulips]")
          const storage = yield* (yield* MemoryVectorRepo).storage
          expect(storage).toEqual(db.kind === "sqlite" ? "libsql" : expect.stringMatching(/^(pgvector|real\[\])$/))
        }))
      }))

    it.effect("fuses the keyword and vector rankings by RRF, best first, with the counts, and pages", () =>
      semantic(Effect.gen(function*() {
        const { cluster, garden, memory } = yield* seed
        const both = (yield* memory.create(note("Kubernetes upgrade", "Plan it."))).item
        const words = (yield* memory.create(note("Upgrade notes", "Write the upgrade notes for the database."))).item
        const query = "kuberntes upgrade"

        // the two rankings, as the repository and the vectors give them
        const repo = yield* MemoryRepo
        const vectors = yield* MemoryVectorRepo
        const filter = { agentId: "default", filter: undefined }
        const keyword = ids((yield* repo.search(filter, queryWords(query), 0, 500)).map((h) => h.row))
        const nearest = ids((yield* vectors.nearest({ modelId: BUILTIN_MODEL_ID, dimensions: 256 }, filter, ngramEmbedding(query), {
          limit: 500,
          minSimilarity: 0.25,
          candidates: keyword
        })).map((h) => h.row))
        expect(new Set(keyword)).toEqual(new Set([both.memory_item_id, words.memory_item_id]))
        expect(nearest).toContain(cluster.memory_item_id)
        expect(nearest).toContain(both.memory_item_id)
        expect(nearest).not.toContain(garden.memory_item_id)

        const { result, stats } = yield* memory.searchWithStats({ query })
        const expected = fuseRankings(keyword, nearest)
        expect(result.hits.map((h) => ({ id: h.memory_item_id, score: h.score, matched: h.matched }))).toEqual(expected)
        expect(stats).toEqual({ keyword_hits: keyword.length, semantic_hits: nearest.length })
        // the item both rankings hold comes before the one only the vectors found
        const order = ids(result.hits)
        expect(order.indexOf(both.memory_item_id)).toBeLessThan(order.indexOf(cluster.memory_item_id))
        expect(result.hits.find((h) => h.memory_item_id === both.memory_item_id)!.matched).toEqual(["keyword", "semantic"])
        expect(result.hits.find((h) => h.memory_item_id === cluster.memory_item_id)!.matched).toEqual(["semantic"])
        expect(result.hits.every((h) => h.score > 0 && h.score <= 1)).toBe(true)

        // pages of the same search, and a keyword-only cursor is not one of it
        const seen: Array<string> = []
        let cursor: string | undefined
        do {
          const page = yield* memory.search({ query, limit: 1, ...(cursor !== undefined ? { cursor } : {}) })
          seen.push(...ids(page.hits))
          cursor = page.next_cursor
        } while (cursor !== undefined)
        expect(seen).toEqual(order)
      })))

    it.effect("keeps vector hits within the agent and the filter", () =>
      semantic(Effect.gen(function*() {
        const { cluster, memory } = yield* seed
        const other = (yield* memory.create(note("Kubernetes cluster", "Control plane on three nodes.", { agent_id: "agent-b" }))).item
        const fact = (yield* memory.create({ kind: "fact", key: "kubernetes_version", value: "1.31", observed_at: "2026-01-01T00:00:00Z", confidence: 1 })).item
        expect(ids((yield* memory.search({ query: "kuberntes" })).hits)).not.toContain(other.memory_item_id)
        expect(ids((yield* memory.search({ query: "kuberntes" })).hits)).toContain(cluster.memory_item_id)
        expect(ids((yield* memory.search({ query: "kuberntes", filter: { agent_id: "agent-b" } })).hits)).toEqual([other.memory_item_id])
        expect(ids((yield* memory.search({ query: "kuberntes", filter: { kinds: ["fact"] } })).hits)).toEqual([fact.memory_item_id])
        expect(ids((yield* memory.search({ query: "kuberntes", filter: { agent_id: "agent-c" } })).hits)).toEqual([])
      })))

    it.effect("replaces an item's vector on update and removes it on delete and forget", () =>
      semantic(Effect.gen(function*() {
        const { cluster, garden, memory } = yield* seed
        const sql = yield* SqlClient.SqlClient
        const count = Effect.map(sql<{ n: number | string }>`SELECT count(*) AS n FROM memory_vectors`, (rows) => Number(rows[0].n))
        const upgrade = (yield* memory.create(note("Kubernetes upgrade", "Plan it."))).item
        expect(yield* count).toBe(3)
        yield* memory.update(cluster.memory_item_id, { title: "Orchard", body_md: "Apple trees." })
        // the others are still found (the index stays whole as vectors are replaced and removed)
        expect(ids((yield* memory.search({ query: "kuberntes" })).hits)).toEqual([upgrade.memory_item_id])
        expect(ids((yield* memory.search({ query: "orchards" })).hits)).toContain(cluster.memory_item_id)
        // a patch that leaves the text alone keeps the vector
        yield* memory.update(cluster.memory_item_id, { sensitivity: "public" })
        expect(ids((yield* memory.search({ query: "orchards" })).hits)).toContain(cluster.memory_item_id)
        expect(yield* count).toBe(3)
        yield* memory.delete(cluster.memory_item_id)
        expect(yield* count).toBe(2)
        expect(ids((yield* memory.search({ query: "kuberntes" })).hits)).toEqual([upgrade.memory_item_id])
        expect(ids((yield* memory.search({ query: "gardens tulip" })).hits)).toContain(garden.memory_item_id)
        yield* memory.forget({ confirm: "FORGET", selectors: [{ kind: "id", memory_item_id: garden.memory_item_id }] })
        expect(yield* count).toBe(1)
        expect(ids((yield* memory.search({ query: "kuberntes" })).hits)).toEqual([upgrade.memory_item_id])
        yield* memory.delete(upgrade.memory_item_id)
        expect(yield* count).toBe(0)
        expect((yield* memory.search({ query: "gardens tulip orchards" })).hits).toEqual([])
      })))

    it.effect("embeds the items stored without a vector (the backfill)", () =>
      semantic(Effect.gen(function*() {
        const memory = yield* Memory
        const repo = yield* MemoryRepo
        const item: MemoryItem = {
          v: 1,
          memory_item_id: "00000000-0000-4000-8000-00000000000a",
          agent_id: "default",
          kind: "note",
          title: "Kubernetes cluster",
          body_md: "Imported before semantic search was on.",
          tags: [],
          sensitivity: "private",
          provenance: { source_kind: "import", refs: [] },
          created_at: "2026-01-01T00:00:00.000Z"
        }
        // stored as an import or a gateway with semantic search off stores it: no vector
        // (the layer's own backfill, started with it, may embed it too: either way it is embedded once)
        yield* repo.insert(toRow(item))
        yield* memory.embedMissing(10)
        expect(yield* memory.embedMissing(10)).toBe(0)
        expect(ids((yield* memory.search({ query: "kuberntes" })).hits)).toEqual([item.memory_item_id])
      })))
  })
}
