/**
 * The "plain loop" of the workflow benchmark: the least the gateway's work
 * for a run takes, in its own process. For each run, with K runs in flight
 * (closed loop, `workflow-loop.ts`), it writes the same rows the gateway's
 * run records get (services/workflow/runs/RunsRepo.ts, written by the
 * RunRecorder of services/workflow/Workflow.ts), in the same tables (created
 * by the gateway's own migrations) and the same transactions, and makes the
 * same HTTP calls to the same local server with `fetch`:
 *
 * 1. tx: INSERT job, INSERT run, INSERT steps (one multi-row INSERT)
 * 2. tx: run queued → running, job queued → running
 * 3. per step: step queued → running; INSERT attempt; the HTTP call;
 *    tx: attempt → succeeded (with the response as its result), step → succeeded
 * 4. tx: run → succeeded, job → completed
 *
 * No durable engine, no ingress HTTP request, no event, no re-reading of
 * rows it already has. SQLite through `libsql` directly (prepared statements,
 * the same pragmas as layers/storage/SqliteClient.ts); PostgreSQL through
 * the repository's own client (`@effect/sql-pg`, one `runPromise` per
 * transaction or statement), since no other PostgreSQL driver is a dependency.
 *
 * Input: `BENCH_BASELINE` (JSON {@link BaselineConfig}); output: one JSON line
 * ({@link BaselineResult}) on stdout.
 *
 * @module
 */
import { Effect, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import Database from "libsql"
import { randomUUID } from "node:crypto"
import { migrate } from "../layers/storage/migrations.ts"
import { storageLayer, type StorageTarget } from "../layers/storage/Storage.ts"
import { workflowRunsMigrations } from "../services/workflow/runs/migrations/index.ts"
import { closedLoop, type LoopResult } from "./workflow-loop.ts"

/** What the baseline process is asked to do. */
export interface BaselineConfig {
  readonly database: StorageTarget
  /** URL of the local HTTP server every step calls. */
  readonly target: string
  readonly stepsPerRun: number
  readonly k: number
  readonly warmupMs: number
  readonly durationMs: number
  /** `PRAGMA synchronous` for SQLite (experiment; default: SQLite's, FULL, as the gateway). */
  readonly sqliteSynchronous?: string | undefined
}

/** What it measured (counts are over the measured window). */
export interface BaselineResult {
  readonly loop: LoopResult
  readonly statements: number
  readonly transactions: number
  readonly cpuUs: number
}

type Params = ReadonlyArray<unknown>
type Stmt = readonly [sql: string, params: Params]

/** A database that runs `?`-parameter statements, alone or in one transaction. */
interface PlainDb {
  readonly run: (sql: string, params: Params) => Promise<void>
  readonly tx: (statements: ReadonlyArray<Stmt>) => Promise<void>
  readonly close: () => Promise<void>
}

const counts = { statements: 0, transactions: 0 }

const sqliteDb = (filename: string, synchronous: string | undefined): PlainDb => {
  const db = new Database(filename)
  db.exec("PRAGMA busy_timeout = 5000")
  db.exec("PRAGMA foreign_keys = ON")
  db.exec("PRAGMA journal_mode = WAL")
  if (synchronous !== undefined) db.exec(`PRAGMA synchronous = ${synchronous}`)
  const cache = new Map<string, Database.Statement>()
  const prepared = (sql: string) => {
    let stmt = cache.get(sql)
    if (stmt === undefined) cache.set(sql, stmt = db.prepare(sql))
    return stmt
  }
  const exec = (sql: string, params: Params) => {
    counts.statements++
    const stmt = prepared(sql)
    if (stmt.reader) stmt.all([...params])
    else stmt.run([...params])
  }
  return {
    run: async (sql, params) => exec(sql, params),
    tx: async (statements) => {
      counts.transactions++
      exec("BEGIN IMMEDIATE", [])
      try {
        for (const [sql, params] of statements) exec(sql, params)
        exec("COMMIT", [])
      } catch (error) {
        exec("ROLLBACK", [])
        throw error
      }
      counts.statements -= 2 // BEGIN/COMMIT are counted as the transaction's two
    },
    close: async () => void db.close()
  }
}

const toPg = (sql: string): string => {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

const postgresDb = (target: StorageTarget & { kind: "postgres" }): PlainDb => {
  const runtime = ManagedRuntime.make(storageLayer(target))
  const one = (sql: SqlClient.SqlClient, text: string, params: Params) => sql.unsafe(toPg(text), params)
  return {
    run: (text, params) => {
      counts.statements++
      return runtime.runPromise(Effect.asVoid(Effect.flatMap(SqlClient.SqlClient, (sql) => one(sql, text, params))))
    },
    tx: (statements) => {
      counts.transactions++
      counts.statements += statements.length
      return runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(Effect.forEach(statements, ([text, params]) => one(sql, text, params), { discard: true }))))
    },
    close: () => runtime.dispose()
  }
}

const createTables = (target: StorageTarget) => {
  const runtime = ManagedRuntime.make(storageLayer(target))
  return runtime.runPromise(migrate("workflow_runs", workflowRunsMigrations)).finally(() => runtime.dispose())
}

const iso = () => new Date().toISOString()
const placeholders = (n: number) => `(${Array.from({ length: n }, () => "?").join(", ")})`

const JOB_COLUMNS = "job_id, key, lane, status, trigger_kind, trigger, latest_run_id, created_at, updated_at"
const RUN_COLUMNS = "run_id, job_id, key, lane, status, attempt, plan_id, request_id, steps_count, created_at, updated_at, " +
  "started_at, finished_at, paused_reason, paused_detail, policy_snapshot_id, budgets, budget_overridden_at"
const STEP_COLUMNS = "step_id, run_id, step_index, status, action, created_at, updated_at, approval_id"
const ATTEMPT_COLUMNS = "attempt_id, step_id, run_id, attempt, status, started_at, finished_at, result, error, " +
  "postcondition_report, artifacts, cost, policy_decision, policy_applied_override_ids"

/** One run of the plain loop on key `key`; resolves true when every step got a 2xx. */
const runOnce = async (db: PlainDb, config: BaselineConfig, key: string): Promise<boolean> => {
  const run_id = `run-${randomUUID()}`
  const job_id = `job-${randomUUID()}`
  const plan_id = `plan-${randomUUID()}`
  const request_id = `req-${randomUUID()}`
  const action = { type: "Http", args: { method: "GET", url: config.target }, max_attempts: 3, timeout_ms: 30_000 }
  const steps = Array.from({ length: config.stepsPerRun }, (_, step_index) => ({ step_id: randomUUID(), step_index }))
  let at = iso()
  await db.tx([
    [`INSERT INTO workflow_jobs (${JOB_COLUMNS}) VALUES ${placeholders(9)} RETURNING *`,
      [job_id, key, "main", "queued", "api", JSON.stringify({ plan_id, request_id }), run_id, at, at]],
    [`INSERT INTO workflow_runs (${RUN_COLUMNS}) VALUES ${placeholders(18)} RETURNING *`,
      [run_id, job_id, key, "main", "queued", 1, plan_id, request_id, steps.length, at, at, null, null, null, null, null, null, null]],
    [`INSERT INTO workflow_steps (${STEP_COLUMNS}) VALUES ${steps.map(() => placeholders(8)).join(", ")} RETURNING *`,
      steps.flatMap((s) => [s.step_id, run_id, s.step_index, "queued", JSON.stringify(action), at, at, null])]
  ])
  at = iso()
  await db.tx([
    ["UPDATE workflow_runs SET status = ?, updated_at = ?, paused_reason = NULL, paused_detail = NULL, started_at = COALESCE(started_at, ?) " +
      "WHERE run_id = ? AND status IN ('queued') RETURNING *", ["running", at, at, run_id]],
    ["UPDATE workflow_jobs SET status = ?, updated_at = ? WHERE job_id = ? AND status IN ('queued') RETURNING *", ["running", at, job_id]]
  ])
  for (const step of steps) {
    at = iso()
    const attempt_id = `${run_id}:${step.step_index}:1`
    await db.run("UPDATE workflow_steps SET status = ?, updated_at = ? WHERE step_id = ? AND status IN ('queued') RETURNING *",
      ["running", at, step.step_id])
    await db.run(`INSERT INTO workflow_attempts (${ATTEMPT_COLUMNS}) VALUES ${placeholders(14)} RETURNING *`,
      [attempt_id, step.step_id, run_id, 1, "running", at, null, null, null, null, "[]", null, null, "[]"])
    const response = await fetch(config.target)
    const text = await response.text()
    const json = (response.headers.get("content-type") ?? "").includes("json")
    const result = { status: response.status, headers: Object.fromEntries(response.headers), body: json ? JSON.parse(text) : text, body_truncated: false }
    if (!response.ok) return false
    at = iso()
    await db.tx([
      ["UPDATE workflow_attempts SET status = ?, finished_at = ?, result = ? WHERE attempt_id = ? AND status IN ('running') RETURNING *",
        ["succeeded", at, JSON.stringify(result), attempt_id]],
      ["UPDATE workflow_steps SET status = ?, updated_at = ? WHERE step_id = ? AND status IN ('running') RETURNING *",
        ["succeeded", at, step.step_id]]
    ])
  }
  at = iso()
  await db.tx([
    ["UPDATE workflow_runs SET status = ?, updated_at = ?, finished_at = ?, paused_reason = NULL, paused_detail = NULL " +
      "WHERE run_id = ? AND status IN ('running') RETURNING *", ["succeeded", at, at, run_id]],
    ["UPDATE workflow_jobs SET status = ?, updated_at = ? WHERE job_id = ? AND status IN ('running') RETURNING *", ["completed", at, job_id]]
  ])
  return true
}

const main = async () => {
  const config = JSON.parse(process.env.BENCH_BASELINE ?? "") as BaselineConfig
  await createTables(config.database)
  const db = config.database.kind === "sqlite"
    ? sqliteDb(config.database.filename, config.sqliteSynchronous)
    : postgresDb(config.database)
  let before = { statements: 0, transactions: 0, cpu: 0 }
  let after = before
  const mark = () => {
    const cpu = process.cpuUsage()
    return { ...counts, cpu: cpu.user + cpu.system }
  }
  const loop = await closedLoop(config.k, config.warmupMs, config.durationMs, (worker) => runOnce(db, config, `agent:b${worker}:main`), {
    onWindowStart: () => void (before = mark()),
    onWindowEnd: () => void (after = mark())
  })
  await db.close()
  const result: BaselineResult = {
    loop,
    statements: after.statements - before.statements + 2 * (after.transactions - before.transactions),
    transactions: after.transactions - before.transactions,
    cpuUs: after.cpu - before.cpu
  }
  process.stdout.write(`${JSON.stringify(result)}\n`)
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error("workflow-baseline failed:", error)
    process.exit(1)
  }
)
