/**
 * `npm run bench:metrics`: what recording metrics costs on the request path
 * (issue 14: "stay within 3% of the gateway without metrics"). Two gateways
 * of the same build (the bundled CLI, SQLite) serve authenticated
 * `POST /policy/check` side by side: one with metrics on (the default), one
 * with `SVC_METRICS=off` (the no-op recorder: nothing is recorded, no clock
 * is read). They are driven in interleaved rounds, the order swapped every
 * round, and compared per round (on ÷ off), which cancels most of this
 * shared machine's drift. `BENCH_AA=1` compares two metrics-off gateways
 * instead (the A/A control: how far apart two identical servers measure).
 * Then, in one process (bench/metrics-inprocess.ts), the whole request path
 * through three copies of the gateway (metrics on, off, off again as the
 * control), compared by CPU time per request in rotated batches. And the
 * exact work the HTTP middleware adds per request with
 * metrics on (two `performance.now()` reads and one `record`: a route's
 * counter and histogram updated in Effect's registry), in nanoseconds, set
 * against the server CPU per request measured above: a figure the machine's
 * noise does not move much.
 * Prints a markdown report and writes it to `bench/results/metrics-latest.md`.
 *
 * Environment: BENCH_DURATION_S (default 3), BENCH_ROUNDS (default 10),
 * BENCH_CONNECTIONS (default 50), BENCH_WARMUP_S (default 3), BENCH_AA,
 * BENCH_INPROC_BATCHES (default 100 rotations; 0 skips), BENCH_INPROC_BATCH (default 500 requests per batch).
 *
 * @module
 */
// As in src/main.ts: the gateway decodes through Effect's Schema JIT compiler (the in-process part too).
import "effect/schema/SchemaJITCompiler/enable"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Context, Metric } from "effect"
import { makeRecorder } from "../services/metrics/GatewayMetrics.ts"
import { type LoadRun, runLoad } from "./http-bench.ts"
import { runInProcessAB } from "./metrics-inprocess.ts"
import { freePort, installCleanup, onExit, type ServerProcess, startServer } from "./processes.ts"
import { gatewayEnv } from "./sample.ts"

const intEnv = (name: string, fallback: number): number => {
  const raw = process.env[name]
  const value = raw === undefined || raw.trim() === "" ? fallback : Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`)
  return value
}

const settings = {
  durationSeconds: Math.max(1, intEnv("BENCH_DURATION_S", 3)),
  rounds: Math.max(1, intEnv("BENCH_ROUNDS", 10)),
  connections: Math.max(1, intEnv("BENCH_CONNECTIONS", 50)),
  warmupSeconds: intEnv("BENCH_WARMUP_S", 3)
}
const control = process.env.BENCH_AA === "1"
const distRoot = fileURLToPath(new URL("../", import.meta.url))
const resultsDir = fileURLToPath(new URL("../../bench/results/", import.meta.url))
const log = (message: string) => console.error(`[bench:metrics] ${message}`)
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
const quartiles = (values: ReadonlyArray<number>): readonly [number, number] => {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))))]
  return [at(0.25), at(0.75)]
}

/**
 * Nanoseconds the metrics add to one request in the middleware (median of 5
 * timings of 1M simulated requests over 8 routes and 3 statuses, minus the
 * same loop without the metrics).
 */
const recordingCostNs = (): number => {
  const recorder = makeRecorder(Context.make(Metric.MetricRegistry, new Map()))
  const routes = ["/policy/check", "/status", "/approvals/:id", "/workflow/runs/:run_id", "/pairings", "/metrics", "/usage", "/*"]
    .map((route) => recorder.httpRoute(route))
  const statuses = [200, 404, 401]
  const n = 1_000_000
  let sink = 0
  const withMetrics = () => {
    const t0 = performance.now()
    for (let i = 0; i < n; i++) {
      const started = performance.now()
      sink += i & 1
      routes[i & 7].record("POST", statuses[i % 3], (performance.now() - started) / 1000)
    }
    return performance.now() - t0
  }
  const without = () => {
    const t0 = performance.now()
    for (let i = 0; i < n; i++) sink += (i & 1) + (routes[i & 7] === undefined ? 1 : 0) + statuses[i % 3]
    return performance.now() - t0
  }
  withMetrics()
  without()
  const samples: Array<number> = []
  for (let k = 0; k < 5; k++) samples.push(((withMetrics() - without()) * 1e6) / n)
  if (sink === -1) console.log(sink)
  return median(samples)
}

const start = async (name: string, metrics: "on" | "off", home: string): Promise<ServerProcess> => {
  const port = await freePort()
  return startServer({
    name,
    script: join(distRoot, "cli/main.mjs"),
    args: ["serve"],
    env: { ...gatewayEnv(port, home), SVC_METRICS: metrics },
    port
  })
}

const main = async (): Promise<void> => {
  installCleanup()
  const homes = mkdtempSync(join(tmpdir(), "svc-bench-metrics-"))
  const removeHomes = onExit(() => rmSync(homes, { recursive: true, force: true }))
  const [nameA, nameB] = control ? ["off-1", "off-2"] : ["metrics-on", "metrics-off"]
  const runs: Record<string, Array<LoadRun>> = { [nameA]: [], [nameB]: [] }
  let a: ServerProcess | undefined
  let b: ServerProcess | undefined
  try {
    mkdirSync(join(homes, "a"))
    mkdirSync(join(homes, "b"))
    ;[a, b] = await Promise.all([start(nameA, control ? "off" : "on", join(homes, "a")), start(nameB, "off", join(homes, "b"))])
    const load = { connections: settings.connections }
    if (settings.warmupSeconds > 0) {
      for (const target of [a, b]) {
        log(`warm-up ${target.name} ${settings.warmupSeconds} s`)
        await runLoad(target, { ...load, durationSeconds: settings.warmupSeconds })
      }
    }
    for (let round = 1; round <= settings.rounds; round++) {
      for (const target of round % 2 === 1 ? [a, b] : [b, a]) {
        await sleep(300)
        const run = await runLoad(target, { ...load, durationSeconds: settings.durationSeconds })
        if (run.errors + run.timeouts + run.non2xx > 0) throw new Error(`${target.name}: ${run.errors} errors, ${run.non2xx} non-2xx`)
        runs[target.name].push(run)
        log(
          `round ${round}/${settings.rounds} ${target.name.padEnd(11)} ${Math.round(run.rps)} req/s, ` +
            `${run.serverCpuUsPerRequest?.toFixed(1) ?? "n/a"} µs CPU/req, other ${Math.round(run.otherCpuPct ?? 0)}%`
        )
      }
    }
  } finally {
    await Promise.all([a?.stop(), b?.stop()])
    removeHomes()
  }

  const rpsRatios = runs[nameA].map((run, i) => run.rps / runs[nameB][i].rps)
  const cpuRatios = runs[nameA].map((run, i) => (run.serverCpuUsPerRequest ?? NaN) / (runs[nameB][i].serverCpuUsPerRequest ?? NaN))
  const total = (name: string) => {
    const list = runs[name]
    const requests = list.reduce((sum, r) => sum + r.requests, 0)
    const seconds = list.reduce((sum, r) => sum + r.seconds, 0)
    const cpu = list.reduce((sum, r) => sum + (r.serverCpuSeconds ?? NaN), 0)
    return { rps: requests / seconds, cpuUs: (cpu / requests) * 1e6, p50: median(list.map((r) => r.p50Ms)), p99: median(list.map((r) => r.p99Ms)) }
  }
  const [ta, tb] = [total(nameA), total(nameB)]
  const [rq1, rq3] = quartiles(rpsRatios)
  const [cq1, cq3] = quartiles(cpuRatios)
  const costNs = control ? undefined : recordingCostNs()
  const inProcessBatches = intEnv("BENCH_INPROC_BATCHES", 100)
  const inProcessBatch = Math.max(1, intEnv("BENCH_INPROC_BATCH", 500))
  if (!control && inProcessBatches > 0) log(`in-process: ${inProcessBatches} rotations of ${inProcessBatch} requests per gateway`)
  const inProcess = control || inProcessBatches === 0 ? undefined : await runInProcessAB(inProcessBatches, inProcessBatch)
  const maxOther = Math.max(...Object.values(runs).flat().map((r) => r.otherCpuPct ?? 0))
  const fmt = (n: number, digits = 3) => n.toFixed(digits)
  const report = [
    `# Metrics cost on the request path (${control ? "A/A control: two gateways with SVC_METRICS=off" : "SVC_METRICS on vs off"})`,
    "",
    `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} cores), Node ${process.version}; ` +
    `authenticated POST /policy/check, ${settings.connections} connections, ${settings.rounds} interleaved rounds × ${settings.durationSeconds} s ` +
    `(order swapped every round), ${settings.warmupSeconds} s warm-up each. Other processes used up to ${Math.round(maxOther)}% of a core.`,
    "",
    "| gateway | req/s (all rounds) | p50 ms | p99 ms | server CPU µs/request |",
    "|---|---:|---:|---:|---:|",
    `| ${nameA} | ${Math.round(ta.rps).toLocaleString("en-US")} | ${fmt(ta.p50, 2)} | ${fmt(ta.p99, 2)} | ${fmt(ta.cpuUs, 1)} |`,
    `| ${nameB} | ${Math.round(tb.rps).toLocaleString("en-US")} | ${fmt(tb.p50, 2)} | ${fmt(tb.p99, 2)} | ${fmt(tb.cpuUs, 1)} |`,
    "",
    `| ${nameA} ÷ ${nameB}, per round | median | IQR | all rounds pooled |`,
    "|---|---:|---:|---:|",
    `| throughput (higher is better) | **${fmt(median(rpsRatios))}** | ${fmt(rq1)}–${fmt(rq3)} | ${fmt(ta.rps / tb.rps)} |`,
    `| server CPU per request (lower is better) | **${fmt(median(cpuRatios))}** | ${fmt(cq1)}–${fmt(cq3)} | ${fmt(ta.cpuUs / tb.cpuUs)} |`,
    "",
    `Per-round throughput ratios: ${rpsRatios.map((r) => fmt(r)).join(", ")}.`,
    "",
    ...(inProcess === undefined ? [] : [
      `In one process, no sockets (\`HttpRouter.toWebHandler\`, SQLite in memory), ${inProcess.batches} rotations of ` +
      `${inProcess.batchSize} requests per gateway, CPU time per request (\`process.cpuUsage\`):`,
      "",
      "| gateway | CPU µs/request (mean) | ÷ metrics off, per rotation: median | IQR |",
      "|---|---:|---:|---:|",
      `| metrics on | ${fmt(inProcess.cpuUs.on, 1)} | **${fmt(inProcess.onOff[0])}** | ${fmt(inProcess.onOff[1])}–${fmt(inProcess.onOff[2])} |`,
      `| metrics off | ${fmt(inProcess.cpuUs.off, 1)} | 1 | |`,
      `| metrics off again (A/A control) | ${fmt(inProcess.cpuUs.off2, 1)} | ${fmt(inProcess.control[0])} | ${fmt(inProcess.control[1])}–${fmt(inProcess.control[2])} |`,
      ""
    ]),
    ...(costNs === undefined ? [] : [
      `In-process, the metrics work of one request (two clock reads, a counter and a histogram update) costs ` +
      `**${Math.round(costNs)} ns**, ${fmt((costNs / 1000 / tb.cpuUs) * 100, 2)}% of the ${fmt(tb.cpuUs, 1)} µs of server CPU a request ` +
      `costs without metrics.`,
      ""
    ])
  ].join("\n")
  console.log(`\n${report}`)
  mkdirSync(resultsDir, { recursive: true })
  const out = join(resultsDir, control ? "metrics-aa-latest.md" : "metrics-latest.md")
  writeFileSync(out, report)
  log(`wrote ${out}`)
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error("[bench:metrics] failed:", error instanceof Error ? error.message : error)
    process.exit(1)
  }
)
