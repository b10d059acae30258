/**
 * The workflow part of `npm run bench` (`npm run bench:workflow` alone;
 * issue 12 §4): one-step and five-step runs of Http steps against a local
 * server, started as fast as they complete (K in flight), on SQLite and, when
 * `SVC_BENCH_DATABASE_URL` or `SVC_TEST_DATABASE_URL` is set, PostgreSQL (a
 * fresh schema, dropped afterwards). Reports runs/s, p50/p99 start-to-finish
 * latency and SQL statements per step of the gateway
 * (`workflow-gateway.ts`, its own process) beside the plain loop doing the
 * same work (`workflow-baseline.ts`, its own process). Writes
 * bench/results/workflow-latest.{md,json}.
 *
 * Environment (all optional):
 * - BENCH_WF_DURATION_S  measured seconds per case (default 10)
 * - BENCH_WF_WARMUP_S    warm-up seconds per case (default 3)
 * - BENCH_WF_K           runs in flight (default 8)
 * - BENCH_WF_STEPS       run shapes, steps per run (default "1,5")
 * - BENCH_WF_DATABASES   "sqlite,postgres" (default: both when a URL is set)
 * - SVC_EXEC_CONCURRENCY passed to the gateway (default: the gateway's)
 * - BENCH_SQLITE_SYNCHRONOUS  experiment: `PRAGMA synchronous` (e.g. NORMAL) for the
 *                        gateway's and the plain loop's SQLite connections
 *                        (default: SQLite's FULL, what the gateway runs with)
 * - BENCH_WF_COMPLETION  "events" or "polling" (default: events when the gateway
 *                        sends them, else polling)
 * - BENCH_WF_COUNT_SQL=0 count no statements (counting costs the gateway a few %
 *                        of its CPU; this measures how much)
 * - BENCH_CPU_PROF=1     gateway under `node --cpu-prof`; the report (with its
 *                        top frames) goes to workflow-profiled.{md,json}
 *
 * Smoke run: `BENCH_WF_DURATION_S=2 BENCH_WF_WARMUP_S=1 npm run bench:workflow`.
 *
 * @module
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, installCleanup, machineBusySeconds, onExit, type ServerProcess, startServer } from "./processes.ts"
import { newestProfile, renderProfile, summariseProfile } from "./profile.ts"
import { BENCH_ADMIN_TOKEN } from "./sample.ts"
import type { BaselineConfig, BaselineResult } from "./workflow-baseline.ts"
import { type CompletionMode, connectWorkflowClient, type WorkflowClient } from "./workflow-load.ts"
import { closedLoop, percentile } from "./workflow-loop.ts"
import { benchPostgresUrl, createSchema, dropSchema } from "./workflow-pg.ts"
import {
  type BaselineCase,
  type DatabaseResult,
  type GatewayCase,
  renderWorkflowReport,
  TARGET_ONE_STEP_RUNS_PER_SECOND,
  type WorkflowBenchResult
} from "./workflow-report.ts"
import type { DriverTime } from "./workflow-libsql.ts"
import type { SqlCounts } from "./workflow-sqlcount.ts"

const env = (name: string, fallback: number): number => {
  const raw = process.env[name]
  const value = raw === undefined || raw === "" ? fallback : Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`)
  return value
}
const settings = {
  durationSeconds: env("BENCH_WF_DURATION_S", 10),
  warmupSeconds: env("BENCH_WF_WARMUP_S", 3),
  k: Math.floor(env("BENCH_WF_K", 8)),
  shapes: (process.env.BENCH_WF_STEPS ?? "1,5").split(",").map((s) => Number(s.trim())).filter((n) => Number.isInteger(n) && n > 0),
  execConcurrency: process.env.SVC_EXEC_CONCURRENCY ?? "default (4)",
  sqliteSynchronous: process.env.BENCH_SQLITE_SYNCHRONOUS || undefined,
  countSql: process.env.BENCH_WF_COUNT_SQL !== "0",
  completion: ((c) => (c === "events" || c === "polling" ? c : undefined))(process.env.BENCH_WF_COMPLETION) as CompletionMode | undefined
}
const profiling = process.env.BENCH_CPU_PROF === "1"
const postgresUrl = benchPostgresUrl()
const databases = (process.env.BENCH_WF_DATABASES ?? (postgresUrl === undefined ? "sqlite" : "sqlite,postgres"))
  .split(",").map((s) => s.trim()) as Array<"sqlite" | "postgres">

const distRoot = fileURLToPath(new URL("../", import.meta.url))
const resultsDir = fileURLToPath(new URL("../../bench/results/", import.meta.url))
const profileDir = (database: string) => join(resultsDir, "profiles", `workflow-gateway-${database}`)

/** Lets Http steps to the local server run without an approval (docs/policy-bundle.md). */
const POLICY_YML = `v: 1
tools:
  allow: [tool.http.fetch]
network_egress:
  allow: ["http://127.0.0.1:*"]
`

const log = (message: string) => console.error(`[bench:workflow] ${message}`)
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The local HTTP server every step calls; counts the calls. */
const startTarget = async (): Promise<{ url: string; calls: () => number; server: Server }> => {
  let calls = 0
  const body = JSON.stringify({ ok: true, service: "bench-target" })
  const server = createServer((req, res) => {
    calls++
    req.resume()
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`, calls: () => calls, server }
}

interface Counters {
  readonly sql: SqlCounts
  /** Ms libsql held the event loop (SQLite only). */
  readonly driverMs: DriverTime | null
  readonly cpuUs: number
}

const readCounters = async (controlPort: number): Promise<Counters> => {
  const res = await fetch(`http://127.0.0.1:${controlPort}/counts`)
  const body = await res.json() as { sql: SqlCounts; driver_ms: DriverTime | null; cpu_us: number }
  return { sql: body.sql, driverMs: body.driver_ms, cpuUs: body.cpu_us }
}

const diffCounts = (a: SqlCounts, b: SqlCounts): SqlCounts => {
  const diff = (x: Record<string, number>, y: Record<string, number>) =>
    Object.fromEntries(Object.keys(y).map((k) => [k, y[k] - (x[k] ?? 0)]).filter(([, n]) => (n as number) > 0))
  return {
    statements: b.statements - a.statements,
    transactions: b.transactions - a.transactions,
    byTable: diff(a.byTable, b.byTable),
    byVerb: diff(a.byVerb, b.byVerb),
    byText: diff(a.byText, b.byText)
  }
}

const diffTime = (a: DriverTime, b: DriverTime): DriverTime => {
  const diff = (x: Record<string, number>, y: Record<string, number>) =>
    Object.fromEntries(Object.keys(y).map((k) => [k, y[k] - (x[k] ?? 0)]).filter(([, n]) => (n as number) > 0))
  return { total: b.total - a.total, byTable: diff(a.byTable, b.byTable), byVerb: diff(a.byVerb, b.byVerb) }
}

const totalStatements = (c: SqlCounts) => c.statements

/** Per event label, the median time after the POST was sent, over the runs that got it. */
const medianTimeline = (timelines: ReadonlyArray<ReadonlyArray<readonly [string, number]>>): GatewayCase["timeline"] => {
  const byLabel = new Map<string, Array<number>>()
  for (const timeline of timelines) {
    for (const [label, ms] of timeline) byLabel.set(label, [...(byLabel.get(label) ?? []), ms])
  }
  return [...byLabel].map(([label, values]) => ({
    label,
    medianMs: percentile([...values].sort((a, b) => a - b), 50),
    runs: values.length
  })).sort((a, b) => a.medianMs - b.medianMs)
}

const httpSteps = (target: string, n: number) => Array.from({ length: n }, () => ({ type: "Http", args: { method: "GET", url: target } }))

/** Starts one run and learns how completion can be observed: events if one arrives, else polling. */
const probe = async (client: WorkflowClient, target: string): Promise<{ mode: CompletionMode | undefined; problem?: string }> => {
  const runId = await client.start("agent:probe:main", httpSteps(target, 1))
  let status: string
  try {
    status = await client.settled(runId, "polling", 60_000)
  } catch (error) {
    return { mode: undefined, problem: `the probe run did not finish: ${(error as Error).message}` }
  }
  for (let i = 0; i < 20 && !client.sawEvent(runId); i++) await sleep(50)
  const mode: CompletionMode = client.sawEvent(runId) ? "events" : "polling"
  if (status !== "succeeded") return { mode: undefined, problem: `the probe run ended ${status}` }
  return { mode }
}

const stopAndCleanup = async (gateway: ServerProcess | undefined, home: string) => {
  await gateway?.stop()
  rmSync(home, { recursive: true, force: true })
}

/** The gateway's cases on one database. */
const measureGateway = async (
  database: "sqlite" | "postgres",
  target: Awaited<ReturnType<typeof startTarget>>
): Promise<Omit<DatabaseResult, "baseline">> => {
  const home = mkdtempSync(join(tmpdir(), "svc-bench-wf-"))
  const removeHome = onExit(() => rmSync(home, { recursive: true, force: true }))
  writeFileSync(join(home, "policy.yml"), POLICY_YML)
  const schema = database === "postgres" ? await createSchema(postgresUrl!) : undefined
  const problems: Array<string> = []
  const cases: Array<GatewayCase> = []
  let gateway: ServerProcess | undefined
  let client: WorkflowClient | undefined
  let mode: CompletionMode | undefined
  let idleStatementsPerSecond = Number.NaN
  let statementsPerPoll: number | undefined
  try {
    const [port, controlPort] = [await freePort(), await freePort()]
    if (profiling) mkdirSync(profileDir(database), { recursive: true })
    gateway = await startServer({
      name: `gateway (${database})`,
      script: join(distRoot, "bench", "workflow-gateway.js"),
      nodeArgs: profiling ? ["--cpu-prof", "--cpu-prof-dir", profileDir(database)] : [],
      port,
      readyTimeoutMs: 60_000,
      env: {
        ...process.env,
        SVC_HOME: home,
        SVC_PORT: String(port),
        SVC_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
        BENCH_CONTROL_PORT: String(controlPort),
        BENCH_DATABASE_URL: database === "postgres" ? postgresUrl : "",
        BENCH_PG_SCHEMA: schema ?? ""
      }
    })
    client = await connectWorkflowClient(gateway.url, BENCH_ADMIN_TOKEN)
    const probed = await probe(client, target.url)
    mode = probed.mode === undefined ? undefined : settings.completion ?? probed.mode
    if (probed.problem !== undefined) problems.push(probed.problem)
    if (mode === undefined) return { database, mode, idleStatementsPerSecond, statementsPerPoll, gateway: cases, problems }
    log(`${database}: completion observed by ${mode}`)

    await sleep(1000)
    const idleStart = await readCounters(controlPort)
    const idleT0 = performance.now()
    await sleep(3000)
    const idleEnd = await readCounters(controlPort)
    idleStatementsPerSecond = totalStatements(diffCounts(idleStart.sql, idleEnd.sql)) / ((performance.now() - idleT0) / 1000)

    if (mode === "polling") {
      // What one GET /workflow/runs/:id costs, measured on the idle gateway (idle background work removed).
      const done = await client.start("agent:probe:main", httpSteps(target.url, 1))
      await client.settled(done, "polling")
      await sleep(500)
      const n = 200
      const before = await readCounters(controlPort)
      const t0 = performance.now()
      for (let i = 0; i < n; i++) await client.status(done)
      const after = await readCounters(controlPort)
      const idle = idleStatementsPerSecond * ((performance.now() - t0) / 1000)
      statementsPerPoll = Math.max(0, (totalStatements(diffCounts(before.sql, after.sql)) - idle) / n)
    }

    for (const steps of settings.shapes) {
      const payload = httpSteps(target.url, steps)
      let start: Counters | undefined
      let end: Counters | undefined
      let calls0 = 0, calls1 = 0, polls0 = 0, polls1 = 0, busy0 = 0, busy1 = 0, self0 = 0, self1 = 0
      const busy = () => machineBusySeconds() ?? Number.NaN
      const selfCpu = () => {
        const u = process.cpuUsage()
        return (u.user + u.system) / 1e6
      }
      const c = client
      const m = mode
      const timelines: Array<ReadonlyArray<readonly [string, number]>> = []
      let measuring = false
      const loop = await closedLoop(settings.k, settings.warmupSeconds * 1000, settings.durationSeconds * 1000, async (worker) => {
        const runId = await c.start(`agent:b${worker}:main`, payload)
        const status = await c.settled(runId, m)
        const timeline = c.timeline(runId)
        if (status !== "succeeded") throw new Error(`run ${runId} ended ${status}`)
        if (measuring) timelines.push(timeline)
        return true
      }, {
        onWindowStart: async () => {
          measuring = true
          start = await readCounters(controlPort)
          calls0 = target.calls()
          polls0 = c.polls()
          busy0 = busy()
          self0 = selfCpu()
        },
        onWindowEnd: async () => {
          end = await readCounters(controlPort)
          calls1 = target.calls()
          polls1 = c.polls()
          busy1 = busy()
          self1 = selfCpu()
          measuring = false
        }
      })
      const sql = diffCounts(start!.sql, end!.sql)
      const cpuUs = end!.cpuUs - start!.cpuUs
      const polls = polls1 - polls0
      const other = (busy1 - busy0 - cpuUs / 1e6 - (self1 - self0)) / loop.seconds * 100
      const result: GatewayCase = {
        steps,
        loop,
        sql,
        pollStatements: Math.round(polls * (statementsPerPoll ?? 0)),
        polls,
        cpuUs,
        calls: calls1 - calls0,
        driverMs: start!.driverMs === null ? undefined : diffTime(start!.driverMs, end!.driverMs!),
        otherCpuPct: Number.isFinite(other) ? Math.max(0, other) : undefined,
        timeline: m === "events" ? medianTimeline(timelines) : []
      }
      cases.push(result)
      log(
        `${database} gateway ${steps}-step: ${loop.runsPerSecond.toFixed(1)} runs/s, p50 ${loop.p50Ms.toFixed(1)} ms, ` +
          `p99 ${loop.p99Ms.toFixed(1)} ms, ${((totalStatements(sql) - result.pollStatements) / (loop.completed * steps)).toFixed(1)} statements/step, ` +
          `failed ${loop.failed}, gateway CPU ${Math.round(cpuUs / 1e4 / loop.seconds)}%`
      )
      if (loop.completed === 0) problems.push(`no ${steps}-step run finished in the window: ${loop.errors.join("; ")}`)
    }
  } catch (error) {
    problems.push(`failed: ${(error as Error).message}`)
    log(`${database}: ${(error as Error).message}${gateway === undefined ? "" : `\n${gateway.output()}`}`)
  } finally {
    await client?.close().catch(() => undefined)
    await stopAndCleanup(gateway, home)
    removeHome()
    if (schema !== undefined) await dropSchema(postgresUrl!, schema)
  }
  return { database, mode, idleStatementsPerSecond, statementsPerPoll, gateway: cases, problems }
}

/** Runs the plain loop in its own process for one run shape. */
const runBaseline = (config: BaselineConfig): Promise<BaselineResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(distRoot, "bench", "workflow-baseline.js")], {
      env: { ...process.env, BENCH_BASELINE: JSON.stringify(config) },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const kill = onExit(() => child.kill("SIGKILL"))
    let out = ""
    let err = ""
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (err = (err + chunk.toString("utf8")).slice(-4000)))
    child.once("error", reject)
    child.once("exit", (code) => {
      kill()
      const line = out.trim().split("\n").pop() ?? ""
      if (code !== 0 || line === "") return reject(new Error(`plain loop exited ${code}: ${err}`))
      resolve(JSON.parse(line) as BaselineResult)
    })
  })

const measureBaseline = async (database: "sqlite" | "postgres", target: string): Promise<Array<BaselineCase>> => {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-wf-plain-"))
  const removeDir = onExit(() => rmSync(dir, { recursive: true, force: true }))
  const schema = database === "postgres" ? await createSchema(postgresUrl!) : undefined
  const cases: Array<BaselineCase> = []
  try {
    for (const steps of settings.shapes) {
      const result = await runBaseline({
        database: schema === undefined
          ? { kind: "sqlite", filename: join(dir, "plain.db") }
          : { kind: "postgres", url: postgresUrl!, searchPath: schema },
        target,
        stepsPerRun: steps,
        k: settings.k,
        warmupMs: settings.warmupSeconds * 1000,
        durationMs: settings.durationSeconds * 1000,
        sqliteSynchronous: settings.sqliteSynchronous
      })
      cases.push({ steps, ...result })
      log(
        `${database} plain loop ${steps}-step: ${result.loop.runsPerSecond.toFixed(1)} runs/s, p50 ${result.loop.p50Ms.toFixed(1)} ms, ` +
          `p99 ${result.loop.p99Ms.toFixed(1)} ms, ${(result.statements / (result.loop.completed * steps)).toFixed(1)} statements/step`
      )
    }
  } finally {
    removeDir()
    if (schema !== undefined) await dropSchema(postgresUrl!, schema)
  }
  return cases
}

const main = async () => {
  installCleanup()
  const startedAt = Date.now()
  const target = await startTarget()
  const results: Array<DatabaseResult> = []
  const notes: Array<string> = []
  try {
    for (const database of databases) {
      if (database === "postgres" && postgresUrl === undefined) {
        notes.push("PostgreSQL skipped: set SVC_BENCH_DATABASE_URL or SVC_TEST_DATABASE_URL.")
        continue
      }
      log(`${database}: gateway`)
      const gateway = await measureGateway(database, target)
      log(`${database}: plain loop`)
      const baseline = await measureBaseline(database, target.url)
      results.push({ ...gateway, baseline })
    }
  } finally {
    await new Promise((resolve) => target.server.close(resolve))
  }
  if (postgresUrl === undefined) notes.push("PostgreSQL not measured (SVC_BENCH_DATABASE_URL / SVC_TEST_DATABASE_URL unset).")
  const result: WorkflowBenchResult = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    settings: {
      k: settings.k,
      warmupSeconds: settings.warmupSeconds,
      durationSeconds: settings.durationSeconds,
      execConcurrency: settings.execConcurrency,
      sqliteSynchronous: settings.sqliteSynchronous ?? "FULL (SQLite's default, as the gateway)",
      countSql: settings.countSql
    },
    profiled: profiling,
    databases: results,
    notes
  }
  let report = renderWorkflowReport(result)
  if (profiling) {
    report += "\n## CPU profiles of the gateways (whole process lifetime, self time; per request = per run measured)\n"
    for (const d of results) {
      const file = newestProfile(profileDir(d.database), startedAt)
      const runs = d.gateway.reduce((m, g) => m + g.loop.completed, 0)
      report += file === undefined
        ? `\n(no ${d.database} gateway .cpuprofile was written)\n`
        : `\n${renderProfile(`${d.database}: ${file}`, summariseProfile(file, 25), runs)}`
    }
  }
  console.log(`\n${report}`)
  mkdirSync(resultsDir, { recursive: true })
  const base = join(resultsDir, profiling ? "workflow-profiled" : "workflow-latest")
  writeFileSync(`${base}.md`, report)
  writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`)
  const sqlite1 = results.find((d) => d.database === "sqlite")?.gateway.find((g) => g.steps === 1)
  log(
    `wrote ${base}.{md,json} in ${((Date.now() - startedAt) / 1000).toFixed(0)} s; one-step runs on SQLite: ` +
      `${sqlite1 === undefined ? "n/a" : sqlite1.loop.runsPerSecond.toFixed(1)} runs/s (target ${TARGET_ONE_STEP_RUNS_PER_SECOND})`
  )
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error("[bench:workflow] failed:", error instanceof Error ? error.stack : error)
    process.exit(1)
  }
)
