/**
 * SQLite's search statement (services/memory/searchStatement.ts) against the
 * one-pass statement it replaced (rank every match with its row, snippet in
 * the ranking query): the same rows (ids, kinds, provenance, scores,
 * snippets) in the same order, page by page, on every path the statement
 * can take: the index-first candidates when they are enough (the agent holds
 * most matches), the fallback to ranking every match (an agent holding few
 * of them; equal scores at the candidates' cut), and a filter beyond the
 * agent (no candidates). Deterministic data (seeded PRNG).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { filterClauses } from "../../../services/memory/filters.ts"
import { MemoryRepo } from "../../../services/memory/MemoryRepo.ts"
import { MemoryItemRow, toRow } from "../../../services/memory/records.ts"
import type { MemoryFilter, MemoryItem } from "../../../services/memory/schema.ts"
import { CANDIDATE_FACTOR, sqliteSearch } from "../../../services/memory/searchStatement.ts"
import { sqliteMemory } from "../../support/databases.ts"

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"]

/** mulberry32: the same items in every run. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** 430 items: agent `major` 90%, `minor` 10%; words skewed (alpha in most); 30 identical `twin` notes of `major`. */
const items = (): Array<MemoryItem> => {
  const random = prng(7)
  const word = () => WORDS[Math.floor(Math.pow(random(), 2) * WORDS.length)]!
  const text = (n: number) => Array.from({ length: n }, word).join(" ")
  const out: Array<MemoryItem> = []
  for (let i = 0; i < 430; i++) {
    const twin = i >= 400
    const common = {
      v: 1 as const,
      // Twins written later get smaller ids: the candidates' cut (in the index's order) must not pick the page.
      memory_item_id: `00000000-0000-4000-8000-${String(twin ? 1000 - i : i).padStart(12, "0")}`,
      agent_id: twin || i % 10 !== 3 ? "major" : "minor",
      tags: twin ? [] : random() < 0.3 ? [word()] : [],
      sensitivity: "private" as const,
      provenance: { source_kind: "tool" as const, refs: [`ref-${i}`] },
      created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString()
    }
    out.push(
      twin
        ? { ...common, kind: "note", title: "twin", body_md: "twin alpha" }
        : random() < 0.7
        ? { ...common, kind: "note", title: text(1 + Math.floor(random() * 3)), body_md: text(5 + Math.floor(random() * 20)) }
        : { ...common, kind: "fact", key: text(1), value: text(2 + Math.floor(random() * 4)), observed_at: common.created_at, confidence: 0.5 }
    )
  }
  return out
}

/** The one-pass statement the search ran before (every match ranked with its row, the snippet in the ranking). */
const onePass = (sql: SqlClient.SqlClient, where: ReadonlyArray<ReturnType<typeof sql.literal>>, words: ReadonlyArray<string>, offset: number, limit: number) =>
  sql`SELECT m.memory_item_id, m.kind, m.provenance, -bm25(memory_items_fts, 10.0, 1.0, 5.0) AS score,
      snippet(memory_items_fts, -1, '[', ']', '…', 16) AS snippet
    FROM memory_items_fts JOIN memory_items m ON m.rowid = memory_items_fts.rowid
    WHERE memory_items_fts MATCH ${words.map((w) => `"${w}"`).join(" OR ")} AND ${sql.and(where)}
    ORDER BY score DESC, m.memory_item_id LIMIT ${limit} OFFSET ${offset}`

const layer = MemoryRepo.layer.pipe(Layer.provideMerge(sqliteMemory.make()))

describe("SQLite search statement", () => {
  it.effect("returns what ranking every match returned: same rows, order, scores and snippets, on every path", () =>
    Effect.gen(function*() {
      yield* MemoryRepo // applies the migrations
      const sql = yield* SqlClient.SqlClient
      for (const item of items()) {
        const encoded = yield* Schema.encodeEffect(MemoryItemRow)(toRow(item))
        yield* sql`INSERT INTO memory_items ${sql.insert(encoded)}`
      }
      const cases: Array<{ agent: string; filter?: MemoryFilter; words: ReadonlyArray<string> }> = [
        { agent: "major", words: ["alpha"] }, // candidates enough
        { agent: "major", words: ["delta", "golf"] },
        { agent: "major", words: ["twin"] }, // 30 equal scores: the cut falls inside the ties
        { agent: "minor", words: ["alpha"] }, // few of the matches: falls back to ranking every match
        { agent: "minor", words: ["kilo"] },
        { agent: "major", filter: { kinds: ["fact"] }, words: ["alpha"] }, // a filter beyond the agent
        { agent: "nobody", words: ["alpha"] },
        { agent: "major", words: ["zulu"] }
      ]
      let compared = 0
      for (const c of cases) {
        const where = filterClauses(sql, false, { agentId: c.agent, filter: c.filter })
        for (const [offset, limit] of [[0, 6], [6, 6], [0, 51], [20, 11], [100, 6]] as const) {
          const expected = yield* onePass(sql, where, c.words, offset, limit)
          const actual = yield* sqliteSearch(sql, { where, agentOnly: c.filter === undefined, words: c.words, offset, limit })
          expect(actual, `${c.agent} ${c.words.join(" ")} ${JSON.stringify(c.filter)} @${offset}+${limit}`).toEqual(expected)
          compared += expected.length
        }
      }
      expect(compared).toBeGreaterThan(300)
      // The fallback's cases do reach it: the minor agent holds fewer than a page of the best candidates.
      const best = yield* sql<{ agent_id: string }>`SELECT m.agent_id FROM memory_items_fts JOIN memory_items m ON m.rowid = memory_items_fts.rowid
        WHERE memory_items_fts MATCH 'alpha' ORDER BY bm25(memory_items_fts, 10.0, 1.0, 5.0) LIMIT ${CANDIDATE_FACTOR * 6}`
      expect(best.filter((r) => r.agent_id === "minor").length).toBeLessThan(6)
      // The twins tie at the cut of the first page's candidates.
      expect((yield* sql<{ n: number }>`SELECT count(*) AS n FROM memory_items WHERE search_title = 'twin'`)[0]!.n).toBeGreaterThan(CANDIDATE_FACTOR * 6)
    }).pipe(Effect.provide(layer)))
})
