/**
 * Start-up cost, measured the same way for the gateway and its two peers
 * (`npm run bench` runs it after the HTTP rounds; alone: `node
 * dist/bench/startup.js`):
 *
 * - cold start: from spawning `node <server>` to the first `200` answer of
 *   `GET /healthz` (polled every 5 ms), in milliseconds; the gateway on a
 *   fresh `$SVC_HOME` (its database created and migrated) and on an existing
 *   one (a home a first, uncounted start created: migrations up to date);
 * - idle RSS: the server's resident memory (`/proc/<pid>/status` VmRSS) one
 *   second after that first answer, in MiB;
 * - for the gateway's CLI, `svc-gateway --help` (the bundled CLI, and the
 *   unbundled tsc output for comparison): process start to exit.
 *
 * Each measure is taken `BENCH_STARTUP_RUNS` times (default 5), one process
 * at a time; the report gives the median and the spread (min–max).
 *
 * @module
 */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { request } from "node:http"
import { join } from "node:path"
import { freePort } from "./processes.ts"
import { BENCH_ADMIN_TOKEN, gatewayEnv } from "./sample.ts"

/** One target: how to start it (the port is appended to the environment by `env`). */
export interface StartupTarget {
  readonly name: string
  readonly script: string
  readonly args: ReadonlyArray<string>
  readonly env: (port: number, home: string) => NodeJS.ProcessEnv
  /** `existing`: every counted start reuses one home that an uncounted first start created (default: a fresh home each). */
  readonly home?: "fresh" | "existing"
}

/** Median and spread of a list of numbers. */
export interface Spread {
  readonly median: number
  readonly min: number
  readonly max: number
}

const spread = (values: ReadonlyArray<number>): Spread => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
  return { median, min: sorted[0], max: sorted[sorted.length - 1] }
}

const healthy = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path: "/healthz", method: "GET", timeout: 1000 }, (res) => {
      res.resume()
      resolve(res.statusCode === 200)
    })
    req.on("error", () => resolve(false))
    req.on("timeout", () => req.destroy())
    req.end()
  })

const rssMiB = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN)
  return kb / 1024
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** One cold start: spawn, poll `/healthz` until 200, read RSS one second later, stop. */
export const coldStart = async (target: StartupTarget, home: string): Promise<{ readonly ms: number; readonly rss: number }> => {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, [target.script, ...target.args], { env: target.env(port, home), stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-2000)))
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${target.name} exited before answering:\n${stderr}`)
      if (await healthy(port)) break
      if (performance.now() - started > 30_000) throw new Error(`${target.name} did not answer /healthz within 30 s`)
      await sleep(5)
    }
    const ms = performance.now() - started
    await sleep(1000)
    return { ms, rss: rssMiB(child.pid!) }
  } finally {
    child.kill("SIGKILL")
  }
}

/** Runs `node script args` to completion; its wall time in milliseconds. */
const runToExit = (script: string, args: ReadonlyArray<string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [script, ...args], { stdio: "ignore" })
    child.once("error", reject)
    child.once("exit", (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${script} ${args.join(" ")} exited ${code}`))))
  })

/** The three servers of the HTTP bench, plus the gateway's unbundled build for comparison. */
export const startupTargets = (distRoot: string): ReadonlyArray<StartupTarget> => {
  return [
    { name: "gateway", script: join(distRoot, "cli/main.mjs"), args: ["serve"], env: gatewayEnv },
    { name: "gateway (existing home)", script: join(distRoot, "cli/main.mjs"), args: ["serve"], env: gatewayEnv, home: "existing" },
    { name: "gateway (unbundled)", script: join(distRoot, "src/main.js"), args: ["serve"], env: gatewayEnv },
    {
      name: "baseline",
      script: join(distRoot, "bench/baseline-server.js"),
      args: [],
      env: (port) => ({ ...process.env, BASELINE_HOST: "127.0.0.1", BASELINE_PORT: String(port), BASELINE_TOKEN: BENCH_ADMIN_TOKEN })
    },
    {
      name: "hono",
      script: join(distRoot, "bench/hono-server.js"),
      args: [],
      env: (port) => ({ ...process.env, HONO_HOST: "127.0.0.1", HONO_PORT: String(port), HONO_TOKEN: BENCH_ADMIN_TOKEN })
    }
  ]
}

/** Results of {@link measureStartup}. */
export interface StartupReport {
  readonly runs: number
  readonly servers: ReadonlyArray<{ readonly name: string; readonly coldStartMs: Spread; readonly idleRssMiB: Spread }>
  readonly help: ReadonlyArray<{ readonly name: string; readonly ms: Spread }>
}

/** Measures every target `runs` times, one process at a time. `home()` gives each gateway start a fresh state dir. */
export const measureStartup = async (distRoot: string, runs: number, home: () => string): Promise<StartupReport> => {
  const servers: Array<StartupReport["servers"][number]> = []
  for (const target of startupTargets(distRoot)) {
    const samples: Array<{ ms: number; rss: number }> = []
    const existing = target.home === "existing" ? home() : undefined
    if (existing !== undefined) await coldStart(target, existing)
    for (let i = 0; i < runs; i++) samples.push(await coldStart(target, existing ?? home()))
    servers.push({ name: target.name, coldStartMs: spread(samples.map((s) => s.ms)), idleRssMiB: spread(samples.map((s) => s.rss)) })
  }
  const help: Array<StartupReport["help"][number]> = []
  for (const [name, script] of [["svc-gateway --help", "cli/main.mjs"], ["svc-gateway --help (unbundled)", "src/main.js"]] as const) {
    const times: Array<number> = []
    for (let i = 0; i < runs; i++) times.push(await runToExit(join(distRoot, script), ["--help"]))
    help.push({ name, ms: spread(times) })
  }
  return { runs, servers, help }
}

const fmt = (s: Spread, digits = 0) => `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`

/** The report as markdown tables. */
export const renderStartup = (report: StartupReport): string =>
  [
    `## Start-up (${report.runs} runs each, one process at a time; median (min–max))`,
    "",
    "| target | cold start to first /healthz, ms | idle RSS, MiB |",
    "|---|---:|---:|",
    ...report.servers.map((s) => `| ${s.name} | ${fmt(s.coldStartMs)} | ${fmt(s.idleRssMiB, 1)} |`),
    "",
    "| command | wall time, ms |",
    "|---|---:|",
    ...report.help.map((h) => `| ${h.name} | ${fmt(h.ms)} |`),
    ""
  ].join("\n")
