/**
 * Memory search at scale (issue 24 §5; part of `npm run bench`,
 * `npm run bench:memory` alone): 100,000 memory items of one agent (plus a
 * tenth as many of another agent, which every search must skip), then a set
 * of queries, each run N times, through the `Memory` service in process
 * (`memory.search`, the call the WebSocket handler makes) and, interleaved
 * with it, the SAME statement issued directly through the driver: the SQL
 * text and parameters the repository compiled for that query (captured once
 * through `effect/sql`'s statement transformer), prepared once and run with
 * `libsql` on SQLite, and with `sql.unsafe` on a separate `@effect/sql-pg`
 * client on PostgreSQL (no `pg` package here: sql-pg speaks the protocol
 * itself). The direct side returns the same rows and does nothing with them:
 * the least a plain program can do for the same search. Reports p50/p99 per
 * query and side, their ratio, and the target (SQLite p50 ≤ 5 ms; service
 * within 1.5× of the direct query). Writes bench/results/memory-latest.md.
 *
 * Data: deterministic (seeded PRNG), notes, facts, episodes and procedures
 * over a Zipf-distributed synthetic vocabulary, so that word frequencies look
 * like text: the queries pick words by how many of the agent's items hold
 * them (the share is printed): a common word (≈ 10% of items), a single
 * mid-frequency word (≈ 1%), a rare word (a handful of items) and two words
 * (≈ 1% each). Seeding writes batches of rows straight into `memory_items`
 * (encoded by the repository's row schema; SQLite's triggers fill the FTS
 * index, PostgreSQL's GIN index is maintained by the server), then
 * PostgreSQL is `VACUUM ANALYZE`d (a steady state, not a just-loaded table).
 *
 * Environment (all optional):
 * - BENCH_MEMORY_ITEMS      items of the searched agent (default 100000)
 * - BENCH_MEMORY_N          measured searches per query and side (default 200)
 * - BENCH_MEMORY_QUERY_S    time budget per query (default 20 s): a query stops
 *   early once it has spent this long and has at least 30 measured searches
 *   (the report gives the count); its warm-up stops after a fifth of it
 * - BENCH_SQLITE_CACHE_MB   experiment: `PRAGMA cache_size` of both SQLite
 *   connections, in MiB (default: the gateway's, `SQLITE_CACHE_KIB` of
 *   layers/storage/SqliteClient.ts, 64 MiB, on both: the direct side's
 *   connection is opened with it too, so the two read the same cache size)
 * - BENCH_MEMORY_LIMIT      `limit` of each search (default: the service's, 50)
 * - BENCH_MEMORY_DATABASES  "sqlite,postgres" (default: both when a URL is set)
 * - SVC_BENCH_DATABASE_URL / SVC_TEST_DATABASE_URL  the PostgreSQL server (a
 *   fresh schema, dropped afterwards); unset: SQLite only
 * - BENCH_MEMORY_SQLITE_FILE  experiment: build SQLite's database at this path
 *   (replaced if present) and keep it afterwards, to try statements on it
 *   (e.g. with `libsql` in a script); default: a temporary file, removed
 * - BENCH_CPU_PROF=1         also profile the service side alone (after the
 *   measurement, N more searches per query under the inspector's profiler);
 *   the top frames are printed and the profile written to
 *   bench/results/memory-<database>.cpuprofile (git-ignored)
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, Statement } from "effect/sql"
import Database from "libsql"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as PgClient from "../layers/storage/PgClient.ts"
import { SQLITE_CACHE_KIB } from "../layers/storage/SqliteClient.ts"
import { storageLayer, type StorageTarget } from "../layers/storage/Storage.ts"
import { AuditLog } from "../services/audit/AuditLog.ts"
import { Memory } from "../services/memory/Memory.ts"
import { MemoryEmbedder } from "../services/memory/embeddings/MemoryEmbedder.ts"
import { MemoryVectorRepo } from "../services/memory/MemoryVectorRepo.ts"
import { MemoryRepo } from "../services/memory/MemoryRepo.ts"
import { MemoryItemRow, toRow } from "../services/memory/records.ts"
import type { MemoryItem } from "../services/memory/schema.ts"
import { ConnectionRegistry } from "../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../services/ws-sessions/EventBus.ts"
import { renderProfile, summariseProfile } from "./profile.ts"
import { benchPostgresUrl, createSchema, dropSchema } from "./workflow-pg.ts"

const positive = (name: string, fallback: number): number => {
  const raw = process.env[name]
  const value = raw === undefined || raw === "" ? fallback : Number(raw)
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`)
  return value
}
const ITEMS = positive("BENCH_MEMORY_ITEMS", 100_000)
const N = positive("BENCH_MEMORY_N", 200)
const WARMUP = Math.max(10, Math.floor(N / 10))
const QUERY_BUDGET_MS = positive("BENCH_MEMORY_QUERY_S", 20) * 1000
const MIN_SAMPLES = Math.min(N, 30)
const SQLITE_CACHE_MB = process.env.BENCH_SQLITE_CACHE_MB ? positive("BENCH_SQLITE_CACHE_MB", 2) : undefined
/** `PRAGMA cache_size` for {@link SQLITE_CACHE_MB} (negative: KiB); the service's connection has the gateway's otherwise. */
const cachePragma = SQLITE_CACHE_MB === undefined ? undefined : `PRAGMA cache_size = -${SQLITE_CACHE_MB * 1024}`
/** The direct side's `PRAGMA cache_size`: the experiment's, else the gateway's (what the service's connection has). */
const directCachePragma = cachePragma ?? `PRAGMA cache_size = -${SQLITE_CACHE_KIB}`
const LIMIT = process.env.BENCH_MEMORY_LIMIT ? positive("BENCH_MEMORY_LIMIT", 50) : undefined
const PROFILE = process.env.BENCH_CPU_PROF === "1"
const OTHER_ITEMS = Math.ceil(ITEMS / 10)
const AGENT = "bench-agent"
const OTHER_AGENT = "other-agent"
/** p50 target on SQLite, ms, and the service ÷ direct target (issue 24 §5). */
export const TARGET_SQLITE_P50_MS = 5
export const TARGET_RATIO = 1.5

const postgresUrl = benchPostgresUrl()
const databases = (process.env.BENCH_MEMORY_DATABASES ?? (postgresUrl === undefined ? "sqlite" : "sqlite,postgres"))
  .split(",").map((s) => s.trim()).filter((s) => s !== "") as Array<"sqlite" | "postgres">
const resultsDir = fileURLToPath(new URL("../../bench/results/", import.meta.url))

// ---------------------------------------------------------------------------------------------------------------
// Deterministic data

/** mulberry32: a small seeded PRNG (the data is the same in every run). */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const VOCABULARY_SIZE = 20_000
const SYLLABLES = ["ka", "lo", "mi", "ra", "ten", "sul", "vor", "dek", "pa", "ni", "gor", "bel", "tas", "quin", "fo", "zer", "lum", "het", "cor", "dan", "wil", "yam", "sto", "bri"]

/** Synthetic words (2–4 syllables, a consonant ending so stemmers leave them alone), distinct. */
const vocabulary = (random: () => number): ReadonlyArray<string> => {
  const words = new Set<string>()
  while (words.size < VOCABULARY_SIZE) {
    const n = 2 + Math.floor(random() * 3)
    let word = ""
    for (let i = 0; i < n; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)]
    words.add(`${word}x`)
  }
  return [...words]
}

/** A Zipf(s = 1.05) sampler over ranks 0..size-1 (cumulative weights, binary search). */
const zipf = (size: number, random: () => number) => {
  const cumulative = new Float64Array(size)
  let total = 0
  for (let r = 0; r < size; r++) cumulative[r] = total += 1 / Math.pow(r + 1, 1.05)
  return () => {
    const x = random() * total
    let lo = 0
    let hi = size - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cumulative[mid] < x) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

interface Corpus {
  readonly rows: ReadonlyArray<MemoryItemRow>
  /** Items of the searched agent holding each word, by word. */
  readonly frequency: ReadonlyMap<string, number>
  readonly words: ReadonlyArray<string>
}

const corpus = (): Corpus => {
  const random = prng(24)
  const words = vocabulary(random)
  const rank = zipf(words.length, random)
  const text = (count: number) => Array.from({ length: count }, () => words[rank()]).join(" ")
  const frequency = new Map<string, number>()
  const rows: Array<MemoryItemRow> = []
  const start = Date.parse("2026-01-01T00:00:00Z")
  const total = ITEMS + OTHER_ITEMS
  let others = 0
  for (let i = 0; i < total; i++) {
    const other = (i % 11 === 10 && others < OTHER_ITEMS) || i - others >= ITEMS
    if (other) others++
    const agent = other ? OTHER_AGENT : AGENT
    const created_at = new Date(start + i * 60_000).toISOString()
    const common = {
      v: 1 as const,
      memory_item_id: crypto.randomUUID(),
      agent_id: agent,
      tags: Array.from({ length: Math.floor(random() * 3) }, () => words[rank()]),
      sensitivity: "private" as const,
      provenance: { source_kind: "tool" as const, channel: "bench", refs: [] },
      created_at
    }
    const dice = random()
    const item: MemoryItem = dice < 0.5
      ? { ...common, kind: "note", title: text(3 + Math.floor(random() * 5)), body_md: text(20 + Math.floor(random() * 60)) }
      : dice < 0.7
      ? {
        ...common,
        kind: "fact",
        key: text(2),
        value: text(3 + Math.floor(random() * 8)),
        observed_at: created_at,
        confidence: Math.round(random() * 100) / 100
      }
      : dice < 0.9
      ? { ...common, kind: "episode", occurred_at: created_at, summary_md: text(15 + Math.floor(random() * 40)) }
      : { ...common, kind: "procedure", title: text(3), body_md: text(30 + Math.floor(random() * 80)) }
    const row = toRow(item)
    rows.push(row)
    if (agent === AGENT) {
      for (const word of new Set(`${row.search_title} ${row.search_body} ${row.search_tags}`.split(" "))) {
        if (word !== "") frequency.set(word, (frequency.get(word) ?? 0) + 1)
      }
    }
  }
  return { rows, frequency, words }
}

/** The word whose share of the agent's items is closest to `share`. */
const wordNear = ({ frequency }: Corpus, share: number, except: ReadonlyArray<string> = []): string => {
  let best = ""
  let distance = Infinity
  for (const [word, count] of frequency) {
    if (except.includes(word)) continue
    const d = Math.abs(Math.log(count / ITEMS) - Math.log(share))
    if (d < distance) [best, distance] = [word, d]
  }
  return best
}

interface Query {
  readonly name: string
  readonly query: string
  /** Items of the agent holding each word, as a share (0..1). */
  readonly shares: ReadonlyArray<number>
}

const queries = (data: Corpus): ReadonlyArray<Query> => {
  const common = wordNear(data, 0.1)
  const single = wordNear(data, 0.01, [common])
  const rare = wordNear(data, 5 / ITEMS, [common, single])
  const first = wordNear(data, 0.012, [common, single, rare])
  const second = wordNear(data, 0.008, [common, single, rare, first])
  const share = (word: string) => (data.frequency.get(word) ?? 0) / ITEMS
  return [
    { name: "single word", query: single, shares: [share(single)] },
    { name: "two words", query: `${first} ${second}`, shares: [share(first), share(second)] },
    { name: "rare word", query: rare, shares: [share(rare)] },
    { name: "common word", query: common, shares: [share(common)] }
  ]
}

// ---------------------------------------------------------------------------------------------------------------
// Measuring

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

/** One side's wall-clock latency per search (ms) and the process's CPU time per search (ms, user + system). */
interface Side {
  readonly p50: number
  readonly p99: number
  readonly mean: number
  readonly cpu: number
}
const summary = (samples: Array<number>, cpuMicros: number): Side => {
  const sorted = samples.sort((a, b) => a - b)
  return {
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    cpu: cpuMicros / 1000 / sorted.length
  }
}

interface QueryResult extends Query {
  /** Measured searches per side. */
  readonly samples: number
  readonly hits: number
  readonly directRows: number
  readonly service: Side
  readonly direct: Side
}

interface DatabaseResult {
  readonly database: "sqlite" | "postgres"
  readonly seedSeconds: number
  readonly results: ReadonlyArray<QueryResult>
}

/** The direct side: runs one compiled statement through the driver, returns the number of rows. */
type Direct = (sql: string, params: ReadonlyArray<unknown>) => Effect.Effect<number, unknown>

const SEED_BATCH = 500

const seed = (rows: ReadonlyArray<MemoryItemRow>, postgres: boolean) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const encode = Schema.encodeSync(MemoryItemRow)
    const started = performance.now()
    for (let i = 0; i < rows.length; i += SEED_BATCH) {
      const batch = rows.slice(i, i + SEED_BATCH).map((row) => encode(row) as unknown as Record<string, unknown>)
      yield* sql.withTransaction(sql`INSERT INTO memory_items ${sql.insert(batch as [Record<string, unknown>, ...Array<Record<string, unknown>>])}`)
    }
    if (postgres) yield* sql`VACUUM ANALYZE memory_items`.unprepared
    else yield* sql`ANALYZE`.unprepared
    return (performance.now() - started) / 1000
  })

/** The statement the repository ran for a search: its compiled SQL and parameters (the last search statement). */
const captured = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    let compiled: readonly [string, ReadonlyArray<unknown>] | undefined
    const transformer: Statement.Transformer = (self) => {
      const [text, params] = self.compile()
      if (/\bMATCH\b|@@/.test(text)) compiled = [text, params]
      return Effect.succeed(self)
    }
    yield* effect.pipe(Effect.provideService(Statement.CurrentTransformer, transformer))
    if (compiled === undefined) return yield* Effect.die(new Error("the search ran no statement"))
    return compiled
  })

const measure = (name: "sqlite" | "postgres", data: Corpus, direct: Direct) =>
  Effect.gen(function*() {
    const memory = yield* Memory
    const seedSeconds = yield* seed(data.rows, name === "postgres")
    if (name === "sqlite" && cachePragma !== undefined) yield* (yield* SqlClient.SqlClient).unsafe(cachePragma).unprepared
    console.error(`[memory] ${name}: seeded ${data.rows.length} rows in ${seedSeconds.toFixed(1)} s`)
    const results: Array<QueryResult> = []
    for (const q of queries(data)) {
      const request = { query: q.query, filter: { agent_id: AGENT }, ...(LIMIT !== undefined ? { limit: LIMIT } : {}) }
      const [text, params] = yield* captured(memory.search(request))
      const service: Array<number> = []
      const directTimes: Array<number> = []
      let hits = 0
      let directRows = 0
      // Warm-up, then interleaved: the two sides share whatever else the machine is doing.
      let serviceCpu = 0
      let directCpu = 0
      const started = performance.now()
      // Warm-up ends early (after 3) once it has used a fifth of the budget: slow queries spend it measuring.
      let warmup = WARMUP
      for (let i = 0; i < warmup + N; i++) {
        if (i < warmup && i >= 3 && performance.now() - started > QUERY_BUDGET_MS / 5) warmup = i
        if (i >= warmup + MIN_SAMPLES && performance.now() - started > QUERY_BUDGET_MS) break
        const c0 = process.cpuUsage()
        const t0 = performance.now()
        const result = yield* memory.search(request)
        const t1 = performance.now()
        const c1 = process.cpuUsage()
        const rows = yield* direct(text, params)
        const t2 = performance.now()
        const c2 = process.cpuUsage()
        if (i >= warmup) {
          service.push(t1 - t0)
          directTimes.push(t2 - t1)
          serviceCpu += c1.user + c1.system - c0.user - c0.system
          directCpu += c2.user + c2.system - c1.user - c1.system
        }
        hits = result.hits.length
        directRows = rows
      }
      const result: QueryResult = {
        ...q,
        samples: service.length,
        hits,
        directRows,
        service: summary(service, serviceCpu),
        direct: summary(directTimes, directCpu)
      }
      console.error(`[memory] ${name} ${q.name} (${q.query}): service p50 ${result.service.p50.toFixed(2)} ms, direct ${result.direct.p50.toFixed(2)} ms`)
      results.push(result)
    }
    if (PROFILE) {
      const session = new Session()
      session.connect()
      yield* Effect.promise(() => session.post("Profiler.enable").then(() => session.post("Profiler.start")))
      for (const q of queries(data)) {
        const request = { query: q.query, filter: { agent_id: AGENT }, ...(LIMIT !== undefined ? { limit: LIMIT } : {}) }
        for (let i = 0; i < N; i++) yield* memory.search(request)
      }
      const { profile } = yield* Effect.promise(() => session.post("Profiler.stop"))
      session.disconnect()
      mkdirSync(resultsDir, { recursive: true })
      const file = join(resultsDir, `memory-${name}.cpuprofile`)
      writeFileSync(file, JSON.stringify(profile))
      console.error(renderProfile(`memory.search on ${name}, service side only, ${N} searches per query`, summariseProfile(file, 30)))
    }
    return { database: name, seedSeconds, results } satisfies DatabaseResult
  })

const memoryLayer = (storage: ReturnType<typeof storageLayer>) =>
  Memory.layerNoDeps.pipe(
    // Keyword search only (semantic search is off by default): what the issue's target is about.
    Layer.provideMerge(MemoryEmbedder.off),
    Layer.provideMerge(MemoryRepo.layer),
    Layer.provideMerge(MemoryVectorRepo.layer),
    Layer.provideMerge(AuditLog.layer),
    Layer.provideMerge(EventBus.layerNoDeps),
    Layer.provideMerge(ConnectionRegistry.layer),
    Layer.provideMerge(storage)
  )

const runSqlite = async (data: Corpus): Promise<DatabaseResult> => {
  const keep = process.env.BENCH_MEMORY_SQLITE_FILE || undefined
  const directory = keep === undefined ? mkdtempSync(join(tmpdir(), "svc-bench-memory-")) : undefined
  const filename = keep ?? join(directory!, "bench.db")
  if (keep !== undefined) for (const suffix of ["", "-wal", "-shm"]) rmSync(`${keep}${suffix}`, { force: true })
  let db: Database.Database | undefined
  try {
    const statements = new Map<string, Database.Statement>()
    // A plain program: one connection, the statement prepared once, rows as objects.
    const direct: Direct = (text, params) =>
      Effect.sync(() => {
        if (db === undefined) {
          db = new Database(filename)
          db.exec(directCachePragma)
        }
        let statement = statements.get(text)
        if (statement === undefined) statements.set(text, statement = db.prepare(text))
        return statement.all(...params).length
      })
    const target: StorageTarget = { kind: "sqlite", filename }
    return await Effect.runPromise(
      measure("sqlite", data, direct).pipe(Effect.provide(memoryLayer(storageLayer(target))), Effect.orDie)
    )
  } finally {
    db?.close()
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true })
  }
}

const runPostgres = async (data: Corpus, url: string): Promise<DatabaseResult> => {
  const schema = await createSchema(url)
  try {
    const program = Effect.gen(function*() {
      // A second client of its own (one connection), so the direct side never waits for the service's pool.
      const directClient = Context.get(
        yield* Layer.build(PgClient.layer({ url, searchPath: schema, maxConnections: 1, applicationName: "svc-bench-direct" })),
        SqlClient.SqlClient
      )
      const direct: Direct = (text, params) => Effect.map(directClient.unsafe(text, params as Array<unknown>), (rows) => rows.length)
      return yield* measure("postgres", data, direct)
    }).pipe(Effect.scoped, Effect.provide(memoryLayer(storageLayer({ kind: "postgres", url, searchPath: schema }))), Effect.orDie)
    return await Effect.runPromise(program)
  } finally {
    await dropSchema(url, schema)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1))
const pct = (x: number) => (x >= 0.01 ? `${(x * 100).toFixed(1)}%` : `${(x * ITEMS).toFixed(0)} items`)

const render = (all: ReadonlyArray<DatabaseResult>): string => {
  const lines = [
    `# Memory search (issue 24 §5)`,
    ``,
    `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}. ` +
    `${ITEMS.toLocaleString("en")} items of the searched agent + ${OTHER_ITEMS.toLocaleString("en")} of another; ` +
    `up to ${N} measured searches per query and side (${QUERY_BUDGET_MS / 1000} s budget per query) after up to ${WARMUP} warm-up, ` +
    `interleaved; limit ${LIMIT ?? "default (50)"}; SQLite page cache ${SQLITE_CACHE_MB === undefined ? `the gateway's (${SQLITE_CACHE_KIB / 1024} MiB)` : `${SQLITE_CACHE_MB} MiB`} on both sides. ` +
    `Service: \`Memory.search\` in process (what the WS handler calls). Direct: the same compiled SQL and parameters ` +
    `through the driver (libsql, prepared once; PostgreSQL: \`sql.unsafe\` on its own sql-pg connection).`,
    ``,
    `| database | query | words' share of items | hits | searches | service p50 / p99 ms | direct p50 / p99 ms | ratio p50 (mean) | CPU ms per search, service / direct | target |`,
    `|---|---|---|---:|---:|---:|---:|---:|---:|---|`
  ]
  for (const db of all) {
    for (const r of db.results) {
      const ratio = r.service.p50 / r.direct.p50
      const met = ratio <= TARGET_RATIO && (db.database !== "sqlite" || r.service.p50 <= TARGET_SQLITE_P50_MS)
      lines.push(
        `| ${db.database} | ${r.name} \`${r.query}\` | ${r.shares.map(pct).join(", ")} | ${r.hits} | ${r.samples} | ` +
          `${ms(r.service.p50)} / ${ms(r.service.p99)} | ${ms(r.direct.p50)} / ${ms(r.direct.p99)} | ` +
          `${ratio.toFixed(2)}× (${(r.service.mean / r.direct.mean).toFixed(2)}×) | ${ms(r.service.cpu)} / ${ms(r.direct.cpu)} | ` +
          `${met ? "met" : "**not met**"} |`
      )
    }
  }
  lines.push(``, `Seeding (not the subject): ${all.map((d) => `${d.database} ${d.seedSeconds.toFixed(1)} s`).join(", ")}.`)
  lines.push(
    `Targets: p50 ≤ ${TARGET_SQLITE_P50_MS} ms on SQLite; service p50 ≤ ${TARGET_RATIO}× the direct query's. ` +
      `CPU per search is this process's user + system time around each call (the PostgreSQL server's own CPU is not in it). ` +
      `Load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(" / ")} on ${cpus().length} cores.`,
    ``
  )
  return lines.join("\n")
}

const main = async () => {
  const started = performance.now()
  const data = corpus()
  console.error(`[memory] generated ${data.rows.length} items in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  const all: Array<DatabaseResult> = []
  for (const database of databases) {
    if (database === "sqlite") all.push(await runSqlite(data))
    else if (postgresUrl === undefined) console.error("[memory] postgres: skipped (no SVC_BENCH_DATABASE_URL / SVC_TEST_DATABASE_URL)")
    else all.push(await runPostgres(data, postgresUrl))
  }
  const report = render(all)
  console.log(report)
  // The committed result is the default configuration's (100k items, the gateway's page cache).
  if (ITEMS === 100_000 && SQLITE_CACHE_MB === undefined) {
    mkdirSync(resultsDir, { recursive: true })
    writeFileSync(join(resultsDir, "memory-latest.md"), report)
  }
}

void main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
