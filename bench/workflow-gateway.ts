/**
 * The gateway for the workflow benchmark (`bench/workflow-run.ts`), in its
 * own process: what `svc-gateway serve` runs (`GatewayLive`: routes, WS,
 * workflow engine, logging, the Schema JIT) with the engine's HTTP API on,
 * plus a SQL statement counter (`bench/workflow-sqlcount.ts`) read over a
 * second, plain `node:http` listener: `GET /counts` →
 * `{sql, driver_ms, cpu_us}` (`driver_ms`: how long libsql held the event
 * loop, SQLite only; `workflow-libsql.ts`).
 *
 * Environment: `SVC_HOME`, `SVC_PORT`, `SVC_ADMIN_TOKEN` (required),
 * `BENCH_CONTROL_PORT` (required), `BENCH_DATABASE_URL` + `BENCH_PG_SCHEMA`
 * (PostgreSQL in that existing schema; else SQLite `$SVC_HOME/gateway.db`),
 * `SVC_EXEC_CONCURRENCY` (default: the gateway's), `BENCH_SQLITE_SYNCHRONOUS`
 * (experiment: `PRAGMA synchronous`, see `workflow-libsql.ts`),
 * `BENCH_WF_COUNT_SQL=0` (count nothing: what counting costs).
 *
 * @module
 */
// Must come first, as in src/main.ts and the CLI bundle.
import "effect/schema/SchemaJITCompiler/enable"
import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { createServer } from "node:http"
import { join } from "node:path"
import { DEFAULTS } from "../src/app/settings.ts"
import { defaultSettings, GatewayLive } from "../src/app/gateway.ts"
import { storageLayer } from "../layers/storage/Storage.ts"
import { type DriverStats, instrumentLibsql } from "./workflow-libsql.ts"
import { countingTransactions, countingTransformer, makeCounts, snapshot } from "./workflow-sqlcount.ts"

const required = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value === "") {
    console.error(`workflow-gateway: ${name} is required`)
    process.exit(2)
  }
  return value
}

const main = () => {
  const home = required("SVC_HOME")
  const controlPort = Number(required("BENCH_CONTROL_PORT"))
  const databaseUrl = process.env.BENCH_DATABASE_URL || undefined
  const schema = process.env.BENCH_PG_SCHEMA || undefined
  const settings = defaultSettings({
    host: "127.0.0.1",
    port: Number(required("SVC_PORT")),
    home,
    adminToken: required("SVC_ADMIN_TOKEN"),
    databaseUrl,
    engineApiEnabled: true,
    rateLimitMax: 1_000_000,
    execConcurrency: Number(process.env.SVC_EXEC_CONCURRENCY ?? DEFAULTS.execConcurrency),
    logLevel: "Error"
  })
  // BENCH_WF_COUNT_SQL=0: nothing counted nor timed (to measure what counting costs).
  const counting = process.env.BENCH_WF_COUNT_SQL !== "0"
  const synchronous = process.env.BENCH_SQLITE_SYNCHRONOUS || undefined
  // SQLite: counted in the driver; PostgreSQL: in effect/sql (workflow-sqlcount.ts).
  const driver: DriverStats | undefined = databaseUrl === undefined ? instrumentLibsql(synchronous, counting) : undefined
  const counts = driver?.counts ?? makeCounts()
  const storage = storageLayer(
    databaseUrl === undefined
      ? { kind: "sqlite", filename: join(home, "gateway.db") }
      : { kind: "postgres", url: databaseUrl, searchPath: schema }
  )
  const control = createServer((req, res) => {
    if (req.url === "/counts") {
      const cpu = process.cpuUsage()
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({
        sql: snapshot(counts),
        driver_ms: driver === undefined || !counting
          ? null
          : { total: driver.time.total, byTable: { ...driver.time.byTable }, byVerb: { ...driver.time.byVerb } },
        cpu_us: cpu.user + cpu.system
      }))
    } else {
      res.writeHead(404).end()
    }
  })
  control.listen(controlPort, "127.0.0.1")
  control.unref()
  const gateway = counting && driver === undefined
    ? GatewayLive(settings, { storage: countingTransactions(storage, counts) }).pipe(Layer.provide(countingTransformer(counts)))
    : GatewayLive(settings, { storage })
  NodeRuntime.runMain(Layer.launch(gateway))
}

main()
