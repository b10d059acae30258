/**
 * `work.transition` throughput under 50 concurrent clients with the WIP check
 * (issue 24 §5), on SQLite (a file) and PostgreSQL (`SVC_BENCH_DATABASE_URL`,
 * else `SVC_TEST_DATABASE_URL`; skipped when neither is set), in process
 * through the `Work` service. 50 clients share 10 scopes (5 per scope, WIP 2):
 * each runs rounds of create → ready → doing (retried while the scope is full)
 * → done. Prints transitions per second (every `work.transition` call, refused
 * ones included), refusals and the p50/p99 latency of one transition.
 *
 * Part of `npm run bench`; alone: `npm run bench:work`. Writes
 * bench/results/work-latest.md. Environment: BENCH_WORK_ROUNDS (rounds per
 * client, default 20).
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { storageLayer } from "../layers/storage/Storage.ts"
import { AuditLog } from "../services/audit/AuditLog.ts"
import { Work } from "../services/work/Work.ts"
import { WorkRepo } from "../services/work/WorkRepo.ts"
import { ConnectionRegistry } from "../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../services/ws-sessions/EventBus.ts"
import { benchPostgresUrl, createSchema, dropSchema } from "./workflow-pg.ts"

const CLIENTS = 50
const SCOPES = 10
const ROUNDS = ((raw) => {
  const n = raw === undefined || raw === "" ? 20 : Number(raw)
  if (!Number.isInteger(n) || n <= 0) throw new Error(`BENCH_WORK_ROUNDS must be a positive integer, got ${JSON.stringify(raw)}`)
  return n
})(process.env.BENCH_WORK_ROUNDS)
const resultsDir = fileURLToPath(new URL("../../bench/results/", import.meta.url))

/** One database's result. */
interface WorkResult {
  readonly database: string
  readonly transitions: number
  readonly refused_wip: number
  readonly per_second: number
  readonly p50_ms: number
  readonly p99_ms: number
  readonly cpu_ms_per_transition: number
  readonly seconds: number
}
const results: Array<WorkResult> = []

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
    const cpu = process.cpuUsage()
    yield* Effect.forEach(Array.from({ length: CLIENTS }, (_, i) => i), client, { concurrency: "unbounded", discard: true })
    const used = process.cpuUsage(cpu)
    const seconds = (performance.now() - started) / 1000
    const sorted = latencies.sort((a, b) => a - b)
    const result: WorkResult = {
      database: name,
      transitions: latencies.length,
      refused_wip: refused,
      per_second: Math.round(latencies.length / seconds),
      p50_ms: Number(percentile(sorted, 0.5).toFixed(2)),
      p99_ms: Number(percentile(sorted, 0.99).toFixed(2)),
      // The whole run's CPU (creations included) over the transitions: this process only, not PostgreSQL's server.
      cpu_ms_per_transition: Number(((used.user + used.system) / 1000 / latencies.length).toFixed(2)),
      seconds: Number(seconds.toFixed(1))
    }
    results.push(result)
    console.log(JSON.stringify({ bench: "work.transition", clients: CLIENTS, ...result }))
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
  if (url === undefined) {
    console.log(JSON.stringify({ bench: "work.transition", database: "postgresql", skipped: "no SVC_BENCH_DATABASE_URL" }))
  } else {
    const schema = await createSchema(url)
    try {
      await Effect.runPromise(run("postgresql", storageLayer({ kind: "postgres", url, searchPath: schema })) as Effect.Effect<void>)
    } finally {
      await dropSchema(url, schema)
    }
  }
  const report = [
    "# work.transition under 50 concurrent clients (issue 24 §5)",
    "",
    `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}; ` +
    `${CLIENTS} clients over ${SCOPES} scopes (WIP 2 each), ${ROUNDS} rounds per client (create → ready → doing, retried ` +
    `while the scope is full → done), in process through \`Work\`; SQLite in a file (synchronous FULL).`,
    "",
    "| database | transitions | refused (WIP) | transitions/s | p50 ms | p99 ms | CPU ms per transition (this process) | seconds |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...results.map((r) =>
      `| ${r.database} | ${r.transitions} | ${r.refused_wip} | ${r.per_second} | ${r.p50_ms} | ${r.p99_ms} | ${r.cpu_ms_per_transition} | ${r.seconds} |`
    ),
    "",
    `Load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(" / ")}.`,
    ""
  ].join("\n")
  console.log(report)
  if (ROUNDS === 20) {
    mkdirSync(resultsDir, { recursive: true })
    writeFileSync(join(resultsDir, "work-latest.md"), report)
  }
}

void main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
