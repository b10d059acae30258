/**
 * `work.transition` throughput under 50 concurrent clients with the WIP check
 * (issue 24 §5), on SQLite (a file) and PostgreSQL (`SVC_BENCH_DATABASE_URL`,
 * else `SVC_TEST_DATABASE_URL`; skipped when neither is set), in process
 * through the `Work` service. 50 clients share 10 scopes (5 per scope, WIP 2):
 * each runs rounds of create → ready → doing (retried while the scope is full)
 * → done. Prints transitions per second (every `work.transition` call, refused
 * ones included), refusals and the p50/p99 latency of one transition.
 *
 * Run: `npm run build && node dist/bench/work-transition.js` (or with tsx).
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { storageLayer } from "../layers/storage/Storage.ts"
import { AuditLog } from "../services/audit/AuditLog.ts"
import { Work } from "../services/work/Work.ts"
import { WorkRepo } from "../services/work/WorkRepo.ts"
import { ConnectionRegistry } from "../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../services/ws-sessions/EventBus.ts"
import { benchPostgresUrl, createSchema, dropSchema } from "./workflow-pg.ts"

const CLIENTS = 50
const SCOPES = 10
const ROUNDS = 20

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

const run = (name: string, storage: ReturnType<typeof storageLayer>) =>
  Effect.gen(function*() {
    const work = yield* Work
    const latencies: Array<number> = []
    let refused = 0
    const transition = (request: Parameters<typeof work.transition>[0]) =>
      Effect.gen(function*() {
        const start = performance.now()
        const exit = yield* Effect.exit(work.transition(request))
        latencies.push(performance.now() - start)
        return exit._tag === "Success"
      })
    const client = (i: number) =>
      Effect.gen(function*() {
        const scope = { tenant_id: "bench", agent_id: "default", workspace_id: `ws-${i % SCOPES}` }
        for (let round = 0; round < ROUNDS; round++) {
          const { item } = yield* work.create({ ...scope, item: { kind: "action", title: `c${i} r${round}` } }, "bench")
          const id = item.work_item_id
          yield* transition({ ...scope, work_item_id: id, status: "ready" })
          while (!(yield* transition({ ...scope, work_item_id: id, status: "doing" }))) {
            refused++
            yield* Effect.yieldNow
          }
          yield* transition({ ...scope, work_item_id: id, status: "done" })
        }
      })
    const started = performance.now()
    yield* Effect.forEach(Array.from({ length: CLIENTS }, (_, i) => i), client, { concurrency: "unbounded", discard: true })
    const seconds = (performance.now() - started) / 1000
    const sorted = latencies.sort((a, b) => a - b)
    console.log(JSON.stringify({
      bench: "work.transition",
      database: name,
      clients: CLIENTS,
      transitions: latencies.length,
      refused_wip: refused,
      per_second: Math.round(latencies.length / seconds),
      p50_ms: Number(percentile(sorted, 0.5).toFixed(2)),
      p99_ms: Number(percentile(sorted, 0.99).toFixed(2))
    }))
  }).pipe(
    Effect.provide(Work.layerNoDeps.pipe(
      Layer.provideMerge(WorkRepo.layer),
      Layer.provideMerge(AuditLog.layer),
      Layer.provideMerge(EventBus.layerNoDeps),
      Layer.provideMerge(ConnectionRegistry.layer),
      Layer.provideMerge(storage)
    ))
  )

const main = async () => {
  const directory = mkdtempSync(join(tmpdir(), "svc-bench-work-"))
  try {
    await Effect.runPromise(run("sqlite", storageLayer({ kind: "sqlite", filename: join(directory, "bench.db") })) as Effect.Effect<void>)
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
  const url = benchPostgresUrl()
  if (url === undefined) return console.log(JSON.stringify({ bench: "work.transition", database: "postgresql", skipped: "no SVC_BENCH_DATABASE_URL" }))
  const schema = await createSchema(url)
  try {
    await Effect.runPromise(run("postgresql", storageLayer({ kind: "postgres", url, searchPath: schema })) as Effect.Effect<void>)
  } finally {
    await dropSchema(url, schema)
  }
}

void main()
