/**
 * Results and markdown report of the workflow benchmark
 * (`bench/workflow-run.ts`): runs/s, latency, SQL statements per step and CPU
 * per run of the gateway beside the plain loop doing the same work.
 *
 * @module
 */
import type { CompletionMode } from "./workflow-load.ts"
import type { LoopResult } from "./workflow-loop.ts"
import type { DriverTime } from "./workflow-libsql.ts"
import type { SqlCounts } from "./workflow-sqlcount.ts"

/** One-step runs per second the gateway should reach on SQLite (issue 22 §1; issue 12 §4 asked for 100). */
export const TARGET_ONE_STEP_RUNS_PER_SECOND = 200

/** The gateway's figures for one run shape (counts over the measured window). */
export interface GatewayCase {
  readonly steps: number
  readonly loop: LoopResult
  /** Statements the gateway ran in the window (its polling GETs included, see `pollStatements`). */
  readonly sql: SqlCounts
  /** Statements attributed to this bench's `GET /workflow/runs/:id` polls (0 with events). */
  readonly pollStatements: number
  readonly polls: number
  /** Gateway process CPU time in the window, µs. */
  readonly cpuUs: number
  /** Calls the local HTTP server received in the window. */
  readonly calls: number
  /** Milliseconds libsql held the gateway's event loop in the window (SQLite only). */
  readonly driverMs?: DriverTime | undefined
  /** CPU used by everything but the gateway and the bench process, % of one core. */
  readonly otherCpuPct: number | undefined
  /** Events of a run (WebSocket, events mode only): median ms after the POST was sent, in that order. */
  readonly timeline: ReadonlyArray<{ readonly label: string; readonly medianMs: number; readonly runs: number }>
}

/** The plain loop's figures for one run shape. */
export interface BaselineCase {
  readonly steps: number
  readonly loop: LoopResult
  readonly statements: number
  readonly transactions: number
  readonly cpuUs: number
}

/** Everything measured on one database. */
export interface DatabaseResult {
  readonly database: "sqlite" | "postgres"
  /** How the bench learnt that runs finished (undefined: no run finished). */
  readonly mode: CompletionMode | undefined
  /** Statements per second the idle gateway runs (the engine's background polling). */
  readonly idleStatementsPerSecond: number
  /** Statements of one `GET /workflow/runs/:id` (polling mode only). */
  readonly statementsPerPoll: number | undefined
  readonly gateway: ReadonlyArray<GatewayCase>
  readonly baseline: ReadonlyArray<BaselineCase>
  /** What went wrong (runs that did not finish, …). */
  readonly problems: ReadonlyArray<string>
}

/** The whole run. */
export interface WorkflowBenchResult {
  readonly date: string
  readonly node: string
  readonly cpu: string
  readonly cores: number
  readonly settings: {
    readonly k: number
    readonly warmupSeconds: number
    readonly durationSeconds: number
    readonly execConcurrency: string
    readonly sqliteSynchronous: string
    /** False with BENCH_WF_COUNT_SQL=0: the statement columns are empty. */
    readonly countSql: boolean
  }
  readonly profiled: boolean
  readonly databases: ReadonlyArray<DatabaseResult>
  readonly notes: ReadonlyArray<string>
}

/** All statements of a gateway window, transaction control included, minus the bench's polls. */
export const gatewayStatements = (c: GatewayCase): number => c.sql.statements - c.pollStatements

const perStep = (statements: number, loop: LoopResult, steps: number) => statements / (loop.completed * steps)
const num = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }) : "n/a")
const times = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}x` : "n/a")

const row = (
  database: string,
  steps: number,
  target: string,
  loop: LoopResult,
  statements: number,
  transactions: number,
  cpuUs: number,
  extra: string
) =>
  `| ${database} | ${steps} | ${target} | ${num(loop.runsPerSecond)} | ${num(loop.runsPerSecond * steps)} | ${num(loop.p50Ms, 2)} | ${
    num(loop.p99Ms, 2)
  } | ${num(perStep(statements, loop, steps), 2)} | ${num(transactions / loop.completed, 2)} | ${num(cpuUs / 1000 / loop.completed, 2)} | ${
    loop.failed
  } | ${extra} |`

/** Statements per run by table group, for the gateway's cases on one database. */
const tableBreakdown = (db: DatabaseResult): Array<string> => {
  const lines: Array<string> = []
  for (const c of db.gateway) {
    if (c.loop.completed === 0) continue
    const entries = Object.entries(c.sql.byTable).sort((a, b) => b[1] - a[1])
    const cells = entries.slice(0, 10).map(([table, n]) => `${table} ${num(n / c.loop.completed)}`)
    const verbs = Object.entries(c.sql.byVerb).sort((a, b) => b[1] - a[1]).map(([v, n]) => `${v} ${num(n / c.loop.completed)}`)
    lines.push(
      `- ${db.database}, ${c.steps}-step runs, statements per run by table: ${cells.join(", ")}; ` +
        `by verb: ${verbs.join(", ")}; transactions ${num(c.sql.transactions / c.loop.completed)}` +
        (c.pollStatements > 0 ? `; of these, the bench's polls ≈ ${num(c.pollStatements / c.loop.completed)} per run (subtracted in the table)` : "")
    )
  }
  return lines
}

/** The markdown report. */
export const renderWorkflowReport = (r: WorkflowBenchResult): string => {
  const lines = [
    "# Benchmark: workflow runs",
    "",
    `- Date: ${r.date}`,
    `- Node: ${r.node}`,
    `- CPU: ${r.cpu} (${r.cores} cores)`,
    `- Load: closed loop, K = ${r.settings.k} runs in flight (one per key \`agent:b<i>:main\`), ${r.settings.warmupSeconds} s warm-up, ` +
    `then ${r.settings.durationSeconds} s measured per case; Http GET steps to a local node:http server; SVC_EXEC_CONCURRENCY ${r.settings.execConcurrency}; ` +
    `SQLite \`PRAGMA synchronous\` ${r.settings.sqliteSynchronous}` +
    (r.settings.countSql ? "" : "; SQL statements NOT counted (BENCH_WF_COUNT_SQL=0)") +
    (r.profiled ? "; gateway under `--cpu-prof` (slower)" : ""),
    "",
    "| database | steps/run | target | runs/s | steps/s | p50 ms | p99 ms | SQL statements/step | transactions/run | CPU ms/run | failed | notes |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  ]
  const ratios: Array<string> = []
  for (const db of r.databases) {
    for (const g of db.gateway) {
      const other = g.otherCpuPct === undefined ? "" : `other CPU ${Math.round(g.otherCpuPct)}%`
      const cpuPct = `gateway CPU ${Math.round((g.cpuUs / 1e6 / g.loop.seconds) * 100)}%`
      const counted = r.settings.countSql
      lines.push(row(
        db.database,
        g.steps,
        "gateway",
        g.loop,
        counted ? gatewayStatements(g) : Number.NaN,
        counted ? g.sql.transactions : Number.NaN,
        g.cpuUs,
        [cpuPct, other].filter((s) => s !== "").join(", ")
      ))
      const b = db.baseline.find((x) => x.steps === g.steps)
      if (b === undefined) continue
      lines.push(row(db.database, b.steps, "plain loop", b.loop, b.statements, b.transactions, b.cpuUs, `CPU ${Math.round((b.cpuUs / 1e6 / b.loop.seconds) * 100)}%`))
      ratios.push(
        `| ${db.database} | ${g.steps} | ${times(g.loop.runsPerSecond / b.loop.runsPerSecond)} | ${times(g.loop.p50Ms / b.loop.p50Ms)} | ${
          times(perStep(gatewayStatements(g), g.loop, g.steps) / perStep(b.statements, b.loop, b.steps))
        } | ${times((g.cpuUs / g.loop.completed) / (b.cpuUs / b.loop.completed))} |`
      )
    }
  }
  lines.push(
    "",
    "| gateway ÷ plain loop | steps/run | runs/s | p50 latency | statements/step | CPU/run |",
    "|---|---:|---:|---:|---:|---:|",
    ...ratios,
    ""
  )
  const sqlite1 = r.databases.find((d) => d.database === "sqlite")?.gateway.find((g) => g.steps === 1)
  if (sqlite1 !== undefined) {
    const met = sqlite1.loop.runsPerSecond >= TARGET_ONE_STEP_RUNS_PER_SECOND
    lines.push(
      `**One-step runs on SQLite: ${num(sqlite1.loop.runsPerSecond)} runs/s** (target >= ${TARGET_ONE_STEP_RUNS_PER_SECOND}: ${met ? "met" : "NOT met"})`,
      ""
    )
  }
  lines.push("## Details", "")
  for (const db of r.databases) {
    lines.push(
      `- ${db.database}: completion observed by ${db.mode === undefined ? "nothing (no run finished)" : db.mode === "events" ? "WebSocket run events" : "polling GET /workflow/runs/:id every 10 ms"}; ` +
        `idle gateway ${num(db.idleStatementsPerSecond)} statements/s` +
        (db.statementsPerPoll === undefined ? "" : `; one poll = ${num(db.statementsPerPoll)} statements`)
    )
    if (r.settings.countSql) lines.push(...tableBreakdown(db))
    for (const c of db.gateway) {
      if (c.driverMs !== undefined && c.loop.completed > 0) {
        const per = (ms: number) => num(ms / c.loop.completed, 2)
        const verbs = Object.entries(c.driverMs.byVerb).sort((a, b) => b[1] - a[1]).map(([v, ms]) => `${v} ${per(ms)}`)
        const cluster = Object.entries(c.driverMs.byTable).filter(([t]) => t.startsWith("cluster_")).reduce((n, [, ms]) => n + ms, 0)
        const records = Object.entries(c.driverMs.byTable).filter(([t]) => t.startsWith("workflow_")).reduce((n, [, ms]) => n + ms, 0)
        lines.push(
          `- ${db.database}, ${c.steps}-step: libsql held the gateway's event loop ${per(c.driverMs.total)} ms per run ` +
            `(of ${num(c.cpuUs / 1000 / c.loop.completed, 2)} ms CPU per run); by verb: ${verbs.join(", ")}; ` +
            `cluster_* statements ${per(cluster)}, workflow_* statements ${per(records)}`
        )
      }
      if (c.calls !== c.loop.completed * c.steps) {
        lines.push(`- ${db.database}, ${c.steps}-step: the local server got ${c.calls} calls in the window for ${c.loop.completed * c.steps} steps of completed runs (runs straddle the window edges)`)
      }
      if (c.loop.errors.length > 0) lines.push(`- ${db.database}, ${c.steps}-step gateway failures: ${c.loop.errors.join("; ")}`)
    }
    for (const b of db.baseline) {
      if (b.loop.errors.length > 0) lines.push(`- ${db.database}, ${b.steps}-step plain-loop failures: ${b.loop.errors.join("; ")}`)
    }
    for (const p of db.problems) lines.push(`- ${db.database}: ${p}`)
  }
  for (const db of r.databases) {
    const c = db.gateway.find((g) => g.steps === 1) ?? db.gateway[0]
    if (c === undefined || c.loop.completed === 0 || !r.settings.countSql) continue
    const texts = Object.entries(c.sql.byText).sort((a, b) => b[1] - a[1])
    lines.push(
      "",
      `### The statements of a ${c.steps}-step run (${db.database}), per run, most frequent first (the bench's polls included)`,
      "",
      "| per run | statement |",
      "|---:|---|",
      ...texts.slice(0, 30).map(([text, n]) => `| ${num(n / c.loop.completed, 2)} | \`${text.replace(/\|/g, "\\|")}\` |`),
      ...(texts.length > 30 ? [`| ${num(texts.slice(30).reduce((m, [, n]) => m + n, 0) / c.loop.completed, 2)} | (${texts.length - 30} other texts) |`] : [])
    )
  }
  for (const db of r.databases) {
    for (const c of db.gateway) {
      if (c.timeline.length === 0) continue
      lines.push(
        "",
        `### Where a ${c.steps}-step run's time goes (${db.database}): events as the client saw them, median ms after sending the POST`,
        "",
        "| event | median ms | runs |",
        "|---|---:|---:|",
        ...c.timeline.map((e) => `| ${e.label} | ${num(e.medianMs, 2)} | ${e.runs} |`)
      )
    }
  }
  lines.push(
    "",
    "## Notes",
    "",
    "- runs/s: runs that finished successfully inside the measured window ÷ its length; p50/p99: their start-to-finish latency " +
    "(client side: from sending `POST /workflow/run` to receiving the terminal event; plain loop: from the first INSERT to the last COMMIT).",
    "- SQL statements/step: every statement the gateway ran in the window (its idle background work, the cluster engine's `cluster_*` " +
    "statements and BEGIN/COMMIT included; the bench's own polls subtracted) ÷ steps of the runs completed in it. Counted by the " +
    "driver on SQLite (libsql), in `effect/sql` on PostgreSQL (each `withTransaction` as BEGIN + COMMIT); bench/workflow-sqlcount.ts. " +
    "transactions/run: BEGINs (SQLite) or `withTransaction` calls (PostgreSQL).",
    "- CPU ms/run: CPU time of the gateway (or plain-loop) process in the window ÷ runs completed. The local HTTP server and the " +
    "bench's client run in the bench process, on the same 2 cores.",
    "- plain loop = bench/workflow-baseline.ts: the same rows (job, run, steps, attempts and their status updates, in the same " +
    "transactions, in the gateway's own tables) and the same HTTP calls, in a straight async loop with the same K in flight; no engine.",
    ...r.notes.map((n) => `- ${n}`),
    ""
  )
  return lines.join("\n")
}
