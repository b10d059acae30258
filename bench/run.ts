/**
 * `npm run bench`: the gateway vs a plain node:http baseline and a Hono +
 * zod server (the original product's stack) on `POST /policy/check`, plus
 * in-process throughput of the engine, the decoders and `PolicyService.check`.
 * Prints a markdown report and writes it to `bench/results/latest.md`.
 *
 * Environment (all optional):
 * - BENCH_DURATION_S   seconds per measured round per target (default 5)
 * - BENCH_ROUNDS       measured rounds per target, interleaved (default 3)
 * - BENCH_CONNECTIONS  autocannon connections (default 50)
 * - BENCH_WARMUP_S     warm-up seconds per target (default 3; 0 skips)
 * - BENCH_INPROC_S     seconds per in-process case (default 1.5)
 * - BENCH_CPU_PROF     set to 1 to run the servers under `node --cpu-prof` and print
 *                      their top self-time frames; the report then goes to
 *                      bench/results/profiled.md, not latest.md (profiling slows them).
 *                      Profiles: bench/results/profiles/{gateway,baseline,hono}/ (git-ignored)
 *
 * Smoke run: `BENCH_DURATION_S=1 BENCH_ROUNDS=1 BENCH_WARMUP_S=0 BENCH_INPROC_S=0.2 npm run bench`.
 *
 * @module
 */
// Must come first, as in src/main.ts: the gateway decodes through Effect's
// Schema JIT compiler, so the in-process decoder cases must too.
import "effect/schema/SchemaJITCompiler/enable"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type LoadRun, runLoad, summarise, verifyTargets } from "./http-bench.ts"
import { runInProcess } from "./inprocess.ts"
import { measureStartup, renderStartup } from "./startup.ts"
import { freePort, installCleanup, onExit, type ServerProcess, startServer } from "./processes.ts"
import { newestProfile, renderProfile, summariseProfile } from "./profile.ts"
import { ratioOf, renderReport, TARGET_RATIO, throughputRatio } from "./report.ts"
import { BENCH_ADMIN_TOKEN } from "./sample.ts"

const numberEnv = (name: string, fallback: number, options: { integer?: boolean; min: number }): number => {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < options.min || (options.integer === true && !Number.isInteger(value))) {
    throw new Error(`${name} must be ${options.integer === true ? "an integer" : "a number"} >= ${options.min}, got ${JSON.stringify(raw)}`)
  }
  return value
}

const settings = {
  durationSeconds: numberEnv("BENCH_DURATION_S", 5, { min: 1, integer: true }),
  rounds: numberEnv("BENCH_ROUNDS", 3, { min: 1, integer: true }),
  connections: numberEnv("BENCH_CONNECTIONS", 50, { min: 1, integer: true }),
  warmupSeconds: numberEnv("BENCH_WARMUP_S", 3, { min: 0, integer: true }),
  inProcessSeconds: numberEnv("BENCH_INPROC_S", 1.5, { min: 0.05 }),
  startupRuns: numberEnv("BENCH_STARTUP_RUNS", 5, { min: 1, integer: true })
}
const profiling = process.env.BENCH_CPU_PROF === "1"
/** Other processes' CPU (% of one core) above which a round counts as disturbed. */
const NOISY_OTHER_CPU_PCT = 15

// This file runs as dist/bench/run.js; the sources' bench/ folder is two levels up.
const distRoot = fileURLToPath(new URL("../", import.meta.url))
const resultsDir = fileURLToPath(new URL("../../bench/results/", import.meta.url))
const profileDir = join(resultsDir, "profiles")

const log = (message: string) => console.error(`[bench] ${message}`)
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const describeRun = (run: LoadRun): string =>
  `${run.target.padEnd(8)} ${Math.round(run.rps).toString().padStart(6)} req/s  p50 ${run.p50Ms.toFixed(2)} ms  ` +
  `p99 ${run.p99Ms.toFixed(2)} ms  errors ${run.errors + run.timeouts}  non-2xx ${run.non2xx}  ` +
  `CPU server ${run.serverCpuPct === undefined ? "n/a" : `${Math.round(run.serverCpuPct)}%`} ` +
  `(${run.serverCpuUsPerRequest === undefined ? "n/a" : run.serverCpuUsPerRequest.toFixed(1)} µs/req) ` +
  `load-gen ${Math.round(run.loadGenCpuPct)}% other ${run.otherCpuPct === undefined ? "n/a" : `${Math.round(run.otherCpuPct)}%`}`

/** The measured servers, by name (also their report rows and profile folders). */
const TARGET_NAMES = ["gateway", "baseline", "hono"] as const
type TargetName = (typeof TARGET_NAMES)[number]
type Targets = Record<TargetName, ServerProcess>

const startTargets = async (home: string): Promise<Targets> => {
  const started: Array<ServerProcess> = []
  try {
    const gatewayPort = await freePort()
    const baselinePort = await freePort()
    const honoPort = await freePort()
    log(
      `starting gateway on :${gatewayPort}, baseline on :${baselinePort} and hono on :${honoPort}` +
        (profiling ? " (all --cpu-prof)" : "")
    )
    const profileArgs = (name: TargetName): Array<string> => {
      if (!profiling) return []
      mkdirSync(join(profileDir, name), { recursive: true })
      return ["--cpu-prof", "--cpu-prof-dir", join(profileDir, name)]
    }
    const [gateway, baseline, hono] = await Promise.all([
      startServer({
        name: "gateway",
        script: join(distRoot, "cli/main.mjs"),
        args: ["serve"],
        nodeArgs: profileArgs("gateway"),
        env: {
          ...process.env,
          SVC_HOST: "127.0.0.1",
          SVC_PORT: String(gatewayPort),
          SVC_HOME: home,
          SVC_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
          SVC_LOG_LEVEL: "Error"
        },
        port: gatewayPort
      }).then((p) => (started.push(p), p)),
      startServer({
        name: "baseline",
        script: join(distRoot, "bench/baseline-server.js"),
        nodeArgs: profileArgs("baseline"),
        env: { ...process.env, BASELINE_HOST: "127.0.0.1", BASELINE_PORT: String(baselinePort), BASELINE_TOKEN: BENCH_ADMIN_TOKEN },
        port: baselinePort
      }).then((p) => (started.push(p), p)),
      startServer({
        name: "hono",
        script: join(distRoot, "bench/hono-server.js"),
        nodeArgs: profileArgs("hono"),
        env: { ...process.env, HONO_HOST: "127.0.0.1", HONO_PORT: String(honoPort), HONO_TOKEN: BENCH_ADMIN_TOKEN },
        port: honoPort
      }).then((p) => (started.push(p), p))
    ])
    return { gateway, baseline, hono }
  } catch (error) {
    await Promise.all(started.map((p) => p.stop(1000)))
    throw error
  }
}


const main = async (): Promise<void> => {
  installCleanup()
  const startedAt = Date.now()
  const home = mkdtempSync(join(tmpdir(), "svc-bench-"))
  const removeHome = onExit(() => rmSync(home, { recursive: true, force: true }))
  let targets: Targets | undefined
  const runs: Record<TargetName, Array<LoadRun>> = { gateway: [], baseline: [], hono: [] }
  /** 2xx responses each server answered under load, warm-up included (per-request profile costs). */
  const served: Record<TargetName, number> = { gateway: 0, baseline: 0, hono: 0 }
  try {
    targets = await startTargets(home)
    const { gateway, baseline, hono } = targets

    log("verifying the servers (identical decisions, 401 without token, same 200/400 on edge cases)")
    const decision = await verifyTargets(gateway, [baseline, hono])
    log(`ok: ${decision.length}-byte decision, identical on all three`)

    const load = { connections: settings.connections }
    if (settings.warmupSeconds > 0) {
      for (const name of TARGET_NAMES) {
        log(`warm-up ${name} ${settings.warmupSeconds} s`)
        const warm = await runLoad(targets[name], { ...load, durationSeconds: settings.warmupSeconds })
        served[name] += warm.requests
      }
    }
    for (let round = 1; round <= settings.rounds; round++) {
      // Rotate the order every round (gateway/baseline/hono, baseline/hono/gateway, hono/gateway/baseline):
      // each target takes each slot once per three rounds, which cancels slow drift (thermal, GC, noisy neighbours).
      const shift = (round - 1) % TARGET_NAMES.length
      const order = [...TARGET_NAMES.slice(shift), ...TARGET_NAMES.slice(0, shift)]
      for (const name of order) {
        await sleep(300)
        const run = await runLoad(targets[name], { ...load, durationSeconds: settings.durationSeconds })
        runs[name].push(run)
        served[name] += run.requests
        log(`round ${round}/${settings.rounds}  ${describeRun(run)}`)
      }
    }
  } finally {
    if (targets !== undefined) {
      const { gateway, baseline, hono } = targets
      await Promise.all([gateway.stop(), baseline.stop(), hono.stop()])
    }
    removeHome()
  }

  log(`in-process cases, ${settings.inProcessSeconds} s each`)
  const inProcess = runInProcess(settings.inProcessSeconds)
  for (const r of inProcess) log(`${r.name}: ${Math.round(r.opsPerSecond).toLocaleString("en-US")} ops/s`)

  const notes: Array<string> = []
  if (profiling) notes.push("All servers ran under `node --cpu-prof`: numbers are lower than an unprofiled run.")
  const summaries = {
    gateway: summarise("gateway", runs.gateway),
    baseline: summarise("baseline", runs.baseline),
    hono: summarise("hono", runs.hono)
  }
  for (const name of ["baseline", "hono"] as const) {
    const summary = summaries[name]
    if (summary.loadGenCpuPct > 90) {
      notes.push(
        `The load generator used ${Math.round(summary.loadGenCpuPct)}% of a core against ${name}: ` +
          `the ${name} figure may be limited by autocannon, not by the server (2 cores shared).`
      )
    }
  }
  const other = Math.max(...TARGET_NAMES.map((name) => summaries[name].maxOtherCpuPct ?? 0))
  if (other > NOISY_OTHER_CPU_PCT) {
    notes.push(
      `WARNING: other processes used up to ${Math.round(other)}% of a core during a measured round; ` +
        "these numbers are disturbed, rerun on a quiet machine."
    )
  }
  const report = renderReport({
    date: new Date(),
    node: process.version,
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    settings,
    ...summaries,
    inProcess,
    notes
  })

  log(`start-up: ${settings.startupRuns} cold starts per target, one at a time`)
  const startupHomes = mkdtempSync(join(tmpdir(), "svc-bench-startup-"))
  const startup = renderStartup(await measureStartup(distRoot, settings.startupRuns, () => mkdtempSync(join(startupHomes, "home-"))))
  rmSync(startupHomes, { recursive: true, force: true })

  let profileReport = ""
  if (profiling) {
    profileReport = "\n## CPU profiles (whole process lifetime, self time)\n"
    for (const name of TARGET_NAMES) {
      const file = newestProfile(join(profileDir, name), startedAt)
      profileReport += file === undefined
        ? `\n(no ${name} .cpuprofile was written)\n`
        : `\n${renderProfile(`${name}: ${file}`, summariseProfile(file), served[name])}`
    }
  }

  console.log(`\n${report}\n${startup}${profileReport}`)
  mkdirSync(resultsDir, { recursive: true })
  const out = join(resultsDir, profiling ? "profiled.md" : "latest.md")
  writeFileSync(out, `${report}\n${startup}${profileReport}`)
  const ratio = ratioOf(summaries)
  log(
    `wrote ${out}; gateway/baseline ${ratio.toFixed(2)}x (target ${TARGET_RATIO}x), ` +
      `hono/baseline ${throughputRatio(summaries.hono, summaries.baseline).toFixed(2)}x ` +
      `in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`
  )
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error("[bench] failed:", error instanceof Error ? error.message : error)
    process.exit(1)
  }
)
