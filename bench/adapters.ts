/**
 * Evidence for docs/adapter-evidence.md: what our HTTP adapter
 * (layers/http/LeanNodeHttpServer.ts) and the idiomatic HttpApi stack cost,
 * per request, against platform-node's adapter and the plain baseline.
 *
 * Targets (all serve an authenticated `POST /policy/check`):
 * - `gateway-lean`  the gateway as shipped, through its CLI: `node dist/src/main.js serve` (SQLite, log
 *                   level Error). tsc's output, like the other targets, not the esbuild bundle
 *                   (dist/cli/main.mjs), so that only the adapter differs from `gateway-node`
 * - `gateway-node`  the same layers on platform-node's `NodeHttpServer.layer` (bench/gateway-node-adapter.ts)
 * - `httpapi-node`  `HttpApi` + `HttpApiBuilder` + a bearer `HttpApiMiddleware` on platform-node (bench/httpapi-server.ts)
 * - `httpapi-lean`  the same on `LeanNodeHttpServer.layer`
 * - `baseline`      the plain `node:http` server (bench/baseline-server.ts)
 * - `gateway-lean-aa` (only when named in BENCH_TARGETS) a second, identical `gateway-lean` process:
 *                   an A/A control whose ratio to `gateway-lean` shows how much two equal servers differ
 * - `before-lean`, `before-node` (only when named in BENCH_TARGETS) `gateway-lean` and `gateway-node`
 *                   of another build, whose `dist/` is BENCH_BEFORE_DIST (e.g. a checkout of main),
 *                   to measure a change before and after in the same run
 * - `hono`          (only when named in BENCH_TARGETS) Hono 4 + zod 4 (bench/hono-server.ts), the peer
 *                   `npm run bench` (bench/run.ts) measures, here in the same interleaved rounds
 *
 * Before measuring, the answers are checked (bench/http-bench.ts `verifyTargets`):
 * byte-identical sample decisions, 401 without and with a wrong token, the
 * same 200/400 split on the edge cases (400 bodies may differ).
 *
 * Then a warm-up per target and N rounds; in each round every target gets one
 * run of D seconds (50 keep-alive connections, autocannon), the order rotated
 * by one every round. Per run: req/s, server CPU µs per 2xx response (from
 * /proc), CPU used by every other process. Each run first waits for a quiet
 * second; a run during which other processes used more than the threshold is
 * discarded and rerun in its place (up to a few times).
 * Reported per target: median and min–max over rounds of CPU µs/request,
 * req/s, and of the per-round ratios against the baseline (and lean vs node).
 *
 * Environment (all optional):
 * - BENCH_ROUNDS        measured rounds (default 10)
 * - BENCH_DURATION_S    seconds per run (default 3)
 * - BENCH_CONNECTIONS   autocannon connections (default 50)
 * - BENCH_WARMUP_S      warm-up seconds per target (default 3; 0 skips)
 * - BENCH_TARGETS       comma-separated subset of the targets (baseline is always included)
 * - BENCH_NOISY_PCT     other-CPU % of a core above which a run is rerun (default 15)
 * - BENCH_RERUNS        reruns allowed per run (default 5)
 * - BENCH_QUIET_WAIT_S  before each run, wait up to this long for a 1 s window in which the machine
 *                       (servers idle) is busy below BENCH_NOISY_PCT (default 120; 0 skips)
 * - BENCH_CPU_PROF=1    run the servers under `node --cpu-prof` and summarise, per target, self
 *                       time per request by category and the top frames, counting only samples taken
 *                       during the load runs (profiles in bench/results/profiles/adapters/, git-ignored)
 * - BENCH_BEFORE_DIST   the `dist/` of the build the `before-*` targets run
 * - BENCH_OUT           also write the markdown report to this file
 * - BENCH_JSON          also write every run (kept and discarded) as JSON to this file
 *
 * `npm run build && node dist/bench/adapters.js`
 *
 * @module
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type LoadRun, runLoad, verifyTargets } from "./http-bench.ts"
import { newestProfile, shortUrl } from "./profile.ts"
import { freePort, installCleanup, machineBusySeconds, onExit, type ServerProcess, startServer } from "./processes.ts"
import { BENCH_ADMIN_TOKEN, gatewayEnv, SAMPLE_BODY } from "./sample.ts"

const numberEnv = (name: string, fallback: number, min: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === "") return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`)
  return value
}

const ALL_TARGETS = [
  "gateway-lean",
  "gateway-node",
  "httpapi-node",
  "httpapi-lean",
  "baseline",
  "gateway-lean-aa",
  "before-lean",
  "before-node",
  "hono"
] as const
type TargetName = (typeof ALL_TARGETS)[number]
/** Measured unless BENCH_TARGETS says otherwise; `gateway-lean-aa` (an A/A control) only on request. */
const DEFAULT_TARGETS: ReadonlyArray<TargetName> = ["gateway-lean", "gateway-node", "httpapi-node", "httpapi-lean", "baseline"]

const settings = {
  rounds: numberEnv("BENCH_ROUNDS", 10, 1),
  durationSeconds: numberEnv("BENCH_DURATION_S", 3, 1),
  connections: numberEnv("BENCH_CONNECTIONS", 50, 1),
  warmupSeconds: numberEnv("BENCH_WARMUP_S", 3, 0),
  noisyPct: numberEnv("BENCH_NOISY_PCT", 15, 1),
  reruns: numberEnv("BENCH_RERUNS", 5, 0),
  quietWaitSeconds: numberEnv("BENCH_QUIET_WAIT_S", 120, 0)
}
const profiling = process.env.BENCH_CPU_PROF === "1"
const selected: ReadonlyArray<TargetName> = (() => {
  const raw = process.env.BENCH_TARGETS
  if (raw === undefined || raw.trim() === "") return DEFAULT_TARGETS
  const names = raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0)
  for (const name of names) {
    if (!(ALL_TARGETS as ReadonlyArray<string>).includes(name)) throw new Error(`BENCH_TARGETS: unknown target ${name}`)
  }
  return ALL_TARGETS.filter((t) => t === "baseline" || names.includes(t))
})()

// This file runs as dist/bench/adapters.js.
const distRoot = fileURLToPath(new URL("../", import.meta.url))
const profileRoot = fileURLToPath(new URL("../../bench/results/profiles/adapters/", import.meta.url))

const beforeDist = (): string => {
  const dir = process.env.BENCH_BEFORE_DIST
  if (dir === undefined || dir.trim() === "") throw new Error("BENCH_BEFORE_DIST must name the dist/ of the before build")
  return dir
}

const log = (message: string) => console.error(`[adapters] ${message}`)
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
/** CLOCK_MONOTONIC in µs: the clock V8 stamps `.cpuprofile` samples with on Linux. */
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n)

/**
 * Waits (up to `maxSeconds`) for a 1 s window in which the whole machine is
 * busy below `pct`% of a core; the servers are idle then, so that is other
 * processes. Returns the last window's busy %.
 */
const waitForQuiet = async (pct: number, maxSeconds: number): Promise<number> => {
  const deadline = Date.now() + maxSeconds * 1000
  let busyPct = 0
  for (;;) {
    const before = machineBusySeconds()
    await sleep(1000)
    const after = machineBusySeconds()
    if (before === undefined || after === undefined) return 0
    busyPct = (after - before) * 100
    if (busyPct < pct || Date.now() > deadline) return busyPct
  }
}

// ---------------------------------------------------------------------------
// Servers
// ---------------------------------------------------------------------------

const startTarget = async (name: TargetName, home: string, profileDir: string | undefined): Promise<ServerProcess> => {
  const port = await freePort()
  const nodeArgs = profileDir === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", profileDir]
  const env = gatewayEnv(port, home)
  const httpapiEnv = (adapter: "node" | "lean") => ({
    ...process.env,
    HTTPAPI_HOST: "127.0.0.1",
    HTTPAPI_PORT: String(port),
    HTTPAPI_TOKEN: BENCH_ADMIN_TOKEN,
    HTTPAPI_ADAPTER: adapter
  })
  // A peer server of bench/ configured by <PREFIX>_HOST, _PORT and _TOKEN.
  const startPeer = (script: string, prefix: string) =>
    startServer({
      name,
      script: join(distRoot, script),
      nodeArgs,
      env: { ...process.env, [`${prefix}_HOST`]: "127.0.0.1", [`${prefix}_PORT`]: String(port), [`${prefix}_TOKEN`]: BENCH_ADMIN_TOKEN },
      port
    })
  switch (name) {
    case "gateway-lean":
    case "gateway-lean-aa":
      return startServer({ name, script: join(distRoot, "src/main.js"), args: ["serve"], nodeArgs, env, port })
    case "gateway-node":
      return startServer({ name, script: join(distRoot, "bench/gateway-node-adapter.js"), nodeArgs, env, port })
    case "before-lean":
      return startServer({ name, script: join(beforeDist(), "src/main.js"), args: ["serve"], nodeArgs, env, port })
    case "before-node":
      return startServer({ name, script: join(beforeDist(), "bench/gateway-node-adapter.js"), nodeArgs, env, port })
    case "httpapi-node":
      return startServer({ name, script: join(distRoot, "bench/httpapi-server.js"), nodeArgs, env: httpapiEnv("node"), port })
    case "httpapi-lean":
      return startServer({ name, script: join(distRoot, "bench/httpapi-server.js"), nodeArgs, env: httpapiEnv("lean"), port })
    case "hono":
      return startPeer("bench/hono-server.js", "HONO")
    case "baseline":
      return startPeer("bench/baseline-server.js", "BASELINE")
  }
}

const post = async (url: string, token: string | undefined) => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  const res = await fetch(`${url}/policy/check`, { method: "POST", headers, body: SAMPLE_BODY })
  return { status: res.status, body: await res.text() }
}

/** The answers must agree before anything is measured (see the module comment). */
const verify = async (targets: ReadonlyMap<TargetName, ServerProcess>): Promise<void> => {
  const reference = targets.get("gateway-lean") ?? targets.get("gateway-node") ?? targets.get("baseline")!
  const control = targets.get("gateway-lean-aa")
  if (control !== undefined && control !== reference) await verifyTargets(reference, [control])
  // Peers whose 401 bodies must be byte-identical to each other: the baseline, the HttpApi servers and Hono.
  const plainPeers = (["baseline", "httpapi-node", "httpapi-lean", "hono"] as const)
    .map((n) => targets.get(n))
    .filter((t): t is ServerProcess => t !== undefined && t !== reference)
  if (plainPeers.length > 0) await verifyTargets(reference, plainPeers)
  const before = (["before-lean", "before-node"] as const).map((n) => targets.get(n)).filter((t): t is ServerProcess => t !== undefined)
  if (before.length > 0) await verifyTargets(reference, before)
  const gatewayNode = targets.get("gateway-node")
  if (gatewayNode !== undefined && gatewayNode !== reference) {
    await verifyTargets(reference, [gatewayNode])
    // The two gateways should also answer 401 identically.
    for (const token of [undefined, "f".repeat(64)]) {
      const [a, b] = await Promise.all([post(reference.url, token), post(gatewayNode.url, token)])
      if (a.status !== b.status || a.body !== b.body) {
        throw new Error(`gateways differ on 401: ${a.status} ${a.body} / ${b.status} ${b.body}`)
      }
    }
  }
  log(`verified: ${[...targets.keys()].join(", ")} agree (decisions byte-identical, 401s, 200/400 split)`)
}

// ---------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------

interface Spread {
  readonly median: number
  readonly min: number
  readonly max: number
}

const spreadOf = (values: ReadonlyArray<number>): Spread => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return {
    median: sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2,
    min: sorted[0],
    max: sorted[sorted.length - 1]
  }
}

const fmt = (s: Spread, digits: number, suffix = ""): string =>
  `**${s.median.toFixed(digits)}${suffix}** (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`

interface Round {
  readonly index: number
  readonly order: ReadonlyArray<TargetName>
  readonly runs: ReadonlyMap<TargetName, LoadRun>
  /** Highest other-CPU % over the round's runs. */
  readonly maxOtherPct: number
  /** Runs of this round discarded as disturbed and rerun. */
  readonly retries: number
}

const cpuOf = (run: LoadRun): number => run.serverCpuUsPerRequest ?? Number.NaN

// ---------------------------------------------------------------------------
// Profiles: self time per request by category, during the load runs only
// ---------------------------------------------------------------------------

interface CpuProfile {
  readonly nodes: ReadonlyArray<{
    readonly id: number
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly scriptId: string | number }
  }>
  readonly endTime: number
  readonly startTime: number
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** Categories of self time, in report order. */
export const CATEGORIES = [
  "node internals (http parser, streams, net, header checks)",
  "writev / native socket writes",
  "other native & V8 builtins",
  "GC",
  "(program)",
  "JSON (parse/stringify)",
  "Effect runtime (fiber loop, Effect/Exit/Context/Scope core)",
  "effect/http (HttpEffect, router, server request/response)",
  "effect/http-api (HttpApiBuilder, middleware)",
  "Schema (decode/encode, JIT)",
  "adapter: platform-node",
  "adapter: LeanNodeHttpServer",
  "gateway middleware, routes, respond, auth",
  "policy engine & PolicyService",
  "bench server code (baseline, httpapi-server)",
  "other"
] as const
type Category = (typeof CATEGORIES)[number]

const categoryOf = (functionName: string, url: string, scriptId: string | number): Category => {
  if (url === "") {
    // Code compiled at run time (`new Function`): the Schema JIT's decoders/encoders.
    if (String(scriptId) !== "0" && !functionName.startsWith("(")) return "Schema (decode/encode, JIT)"
    if (functionName === "(garbage collector)") return "GC"
    if (functionName === "(program)") return "(program)"
    if (/^(writev|writeUtf8String|writeBuffer|writeLatin1String|writeAsciiString|writeUcs2String)$/.test(functionName)) {
      return "writev / native socket writes"
    }
    if (/^(parse|stringify|JSON\.parse|JSON\.stringify)$/.test(functionName)) return "JSON (parse/stringify)"
    return "other native & V8 builtins"
  }
  if (url.startsWith("node:")) return "node internals (http parser, streams, net, header checks)"
  if (url.includes("/@effect/platform-node")) return "adapter: platform-node"
  if (url.includes("/effect/dist/http-api/")) return "effect/http-api (HttpApiBuilder, middleware)"
  if (url.includes("/effect/dist/http/")) return "effect/http (HttpEffect, router, server request/response)"
  if (/\/effect\/dist\/(Schema|schema\/|internal\/schema)/.test(url)) return "Schema (decode/encode, JIT)"
  if (url.includes("/effect/dist/")) return "Effect runtime (fiber loop, Effect/Exit/Context/Scope core)"
  if (url.includes("LeanNodeHttpServer")) return "adapter: LeanNodeHttpServer"
  if (/\/services\/policy\//.test(url)) return "policy engine & PolicyService"
  if (/\/dist\/bench\//.test(url)) return "bench server code (baseline, httpapi-server)"
  if (/\/dist\/(src|services|layers)\//.test(url)) return "gateway middleware, routes, respond, auth"
  return "other"
}

interface ProfileResult {
  readonly windowMs: number
  readonly busyUsPerRequest: number
  readonly categories: ReadonlyArray<readonly [Category, number]>
  readonly frames: ReadonlyArray<readonly [string, number]>
}


/** Self time per request (µs) by category and by frame, over the samples inside `windows` (µs, CLOCK_MONOTONIC). */
const analyseProfile = (
  file: string,
  windows: ReadonlyArray<readonly [number, number]>,
  requests: number
): ProfileResult => {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]))
  const byCategory = new Map<Category, number>()
  const byFrame = new Map<string, number>()
  let t = profile.startTime
  let busy = 0
  let windowUs = 0
  for (const [a, b] of windows) windowUs += b - a
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0
    t += delta
    if (!windows.some(([a, b]) => t >= a && t <= b)) continue
    const frame = byId.get(profile.samples[i])
    if (frame === undefined || frame.functionName === "(idle)") continue
    // A sample's self time is the interval until the next sample.
    const self = profile.timeDeltas[i + 1] ?? delta
    busy += self
    const category = categoryOf(frame.functionName, frame.url, frame.scriptId)
    byCategory.set(category, (byCategory.get(category) ?? 0) + self)
    const label = frame.url === ""
      ? frame.functionName || "(anonymous)"
      : `${frame.functionName || "(anonymous)"} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`
    byFrame.set(label, (byFrame.get(label) ?? 0) + self)
  }
  const first = windows.length === 0 ? 0 : Math.min(...windows.map(([a]) => a))
  const last = windows.length === 0 ? 0 : Math.max(...windows.map(([, b]) => b))
  if (profile.startTime > first || profile.endTime < last) {
    log(`warning: ${file}: profile spans ${profile.startTime}–${profile.endTime} µs, load windows ${first}–${last} µs (clock mismatch?)`)
  }
  const perRequest = (us: number) => us / requests
  return {
    windowMs: windowUs / 1000,
    busyUsPerRequest: perRequest(busy),
    categories: CATEGORIES.filter((c) => byCategory.has(c)).map((c) => [c, perRequest(byCategory.get(c)!)] as const),
    frames: [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([label, us]) => [label, perRequest(us)] as const)
  }
}


// ---------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------

const main = async (): Promise<void> => {
  installCleanup()
  const startedAt = Date.now()
  const homes = mkdtempSync(join(tmpdir(), "svc-adapters-"))
  const removeHomes = onExit(() => rmSync(homes, { recursive: true, force: true }))
  const profileDirs = new Map<TargetName, string>()
  if (profiling) {
    for (const name of selected) {
      const dir = join(profileRoot, name)
      rmSync(dir, { recursive: true, force: true })
      mkdirSync(dir, { recursive: true })
      profileDirs.set(name, dir)
    }
  }

  const targets = new Map<TargetName, ServerProcess>()
  const rounds: Array<Round> = []
  const discarded: Array<{ readonly index: number; readonly name: TargetName; readonly run: LoadRun }> = []
  /** Load windows and 2xx responses per target (for the profiles). */
  const windows = new Map<TargetName, Array<readonly [number, number]>>(selected.map((n) => [n, []]))
  const served = new Map<TargetName, number>(selected.map((n) => [n, 0]))
  const load = { connections: settings.connections }
  const measure = async (name: TargetName, durationSeconds: number): Promise<LoadRun> => {
    const from = nowUs()
    const run = await runLoad(targets.get(name)!, { ...load, durationSeconds })
    windows.get(name)!.push([from, nowUs()])
    served.set(name, served.get(name)! + run.requests)
    return run
  }

  try {
    log(`starting ${selected.join(", ")}${profiling ? " (under --cpu-prof)" : ""}`)
    for (const name of selected) {
      const home = join(homes, name)
      mkdirSync(home)
      targets.set(name, await startTarget(name, home, profileDirs.get(name)))
    }
    await verify(targets)

    if (settings.warmupSeconds > 0) {
      for (const name of selected) {
        log(`warm-up ${name} ${settings.warmupSeconds} s`)
        await measure(name, settings.warmupSeconds)
      }
    }

    for (let index = 1; index <= settings.rounds; index++) {
      const shift = (index - 1) % selected.length
      const order = [...selected.slice(shift), ...selected.slice(0, shift)]
      const runs = new Map<TargetName, LoadRun>()
      let retries = 0
      for (const name of order) {
        for (let attempt = 1; ; attempt++) {
          if (settings.quietWaitSeconds > 0) {
            const waitStart = Date.now()
            const busy = await waitForQuiet(settings.noisyPct, settings.quietWaitSeconds)
            const waited = (Date.now() - waitStart) / 1000
            if (waited > 1.5) log(`waited ${waited.toFixed(0)} s for a quiet machine (last second: ${Math.round(busy)}% busy)`)
          } else {
            await sleep(300)
          }
          const run = await measure(name, settings.durationSeconds)
          const line = `${name} ${Math.round(run.rps)}/s ${cpuOf(run).toFixed(1)}µs other ${Math.round(run.otherCpuPct ?? 0)}%`
          if (run.errors + run.timeouts + run.non2xx > 0) throw new Error(`round ${index}: errors or non-2xx responses: ${line}`)
          if ((run.otherCpuPct ?? 0) > settings.noisyPct && attempt <= settings.reruns) {
            log(`round ${index} ${line}: DISTURBED, rerunning`)
            discarded.push({ index, name, run })
            retries++
            continue
          }
          runs.set(name, run)
          break
        }
      }
      const maxOtherPct = Math.max(...[...runs.values()].map((r) => r.otherCpuPct ?? 0))
      rounds.push({ index, order, runs, maxOtherPct, retries })
      log(
        `round ${index}/${settings.rounds} (other ≤ ${Math.round(maxOtherPct)}%, ${retries} reruns): ` +
          order.map((n) => `${n} ${Math.round(runs.get(n)!.rps)}/s ${cpuOf(runs.get(n)!).toFixed(1)}µs`).join("  ")
      )
    }
  } finally {
    await Promise.all([...targets.values()].map((t) => t.stop()))
    removeHomes()
  }

  // ---- report ----
  const out: Array<string> = []
  out.push(
    `# Adapter evidence run (${new Date().toISOString()})`,
    "",
    `Node ${process.version}, ${cpus()[0]?.model ?? "unknown CPU"} × ${cpus().length}; ${settings.rounds} interleaved rounds × ` +
      `${settings.durationSeconds} s per target (order rotated each round), ${settings.connections} connections, ` +
      `${settings.warmupSeconds} s warm-up per target; each run waits for a quiet second and is rerun when other ` +
      `processes used more than ${settings.noisyPct}% of a core during it (${discarded.length} runs discarded)${profiling ? "; ALL SERVERS UNDER --cpu-prof" : ""}.`,
    "",
    "Median over rounds, (min–max) in brackets. Ratios are per round: target ÷ baseline in the same round.",
    "",
    "| target | server CPU µs/request | req/s | req/s ÷ baseline | CPU/request ÷ baseline | server CPU % |",
    "|---|---:|---:|---:|---:|---:|"
  )
  for (const name of selected) {
    const runs = rounds.map((r) => r.runs.get(name)!)
    const base = rounds.map((r) => r.runs.get("baseline")!)
    const cpu = spreadOf(runs.map(cpuOf))
    const rps = spreadOf(runs.map((r) => r.rps))
    const rpsRatio = spreadOf(runs.map((r, i) => r.rps / base[i].rps))
    const cpuRatio = spreadOf(runs.map((r, i) => cpuOf(r) / cpuOf(base[i])))
    const cpuPct = spreadOf(runs.map((r) => r.serverCpuPct ?? Number.NaN))
    out.push(
      `| ${name} | ${fmt(cpu, 1)} | ${fmt(rps, 0)} | ${name === "baseline" ? "1" : fmt(rpsRatio, 3, "×")} | ` +
        `${name === "baseline" ? "1" : fmt(cpuRatio, 3, "×")} | ${fmt(cpuPct, 0, "%")} |`
    )
  }
  const pairs: Array<readonly [TargetName, TargetName]> = [
    ["gateway-lean", "gateway-node"],
    ["httpapi-lean", "httpapi-node"],
    ["httpapi-node", "gateway-node"],
    ["httpapi-lean", "gateway-lean"],
    ["gateway-lean-aa", "gateway-lean"],
    ["gateway-lean", "before-lean"],
    ["gateway-node", "before-node"],
    ["before-lean", "before-node"],
    ["gateway-lean", "hono"],
    ["before-lean", "hono"]
  ]
  const presentPairs = pairs.filter(([a, b]) => selected.includes(a) && selected.includes(b))
  if (presentPairs.length > 0) {
    out.push(
      "",
      "| per-round pair | CPU µs/request, a ÷ b | req/s, a ÷ b | rounds with a cheaper (CPU) |",
      "|---|---:|---:|---:|"
    )
    for (const [a, b] of presentPairs) {
      const ra = rounds.map((r) => r.runs.get(a)!)
      const rb = rounds.map((r) => r.runs.get(b)!)
      const cpu = ra.map((r, i) => cpuOf(r) / cpuOf(rb[i]))
      const rps = ra.map((r, i) => r.rps / rb[i].rps)
      out.push(
        `| ${a} ÷ ${b} | ${fmt(spreadOf(cpu), 3, "×")} | ${fmt(spreadOf(rps), 3, "×")} | ${cpu.filter((c) => c < 1).length}/${rounds.length} |`
      )
    }
  }
  out.push(
    "",
    "Per round (req/s and server CPU µs/request; other = highest CPU % of a core used by other processes during the round's runs):",
    "",
    `| round | order | ${selected.join(" | ")} | other |`,
    `|---:|---|${selected.map(() => "---:").join("|")}|---:|`
  )
  for (const r of rounds) {
    out.push(
      `| ${r.index}${r.retries > 0 ? ` (${r.retries} reruns)` : ""} | ${r.order.map((n) => n.replace("gateway-", "g-").replace("httpapi-", "api-")).join(" → ")} | ` +
        `${selected.map((n) => `${Math.round(r.runs.get(n)!.rps)} / ${cpuOf(r.runs.get(n)!).toFixed(1)}`).join(" | ")} | ${Math.round(r.maxOtherPct)}% |`
    )
  }
  if (discarded.length > 0) {
    out.push("", "Discarded (disturbed) runs: " + discarded.map((d) =>
      `r${d.index} ${d.name} ${Math.round(d.run.rps)}/s ${cpuOf(d.run).toFixed(1)} µs (other ${Math.round(d.run.otherCpuPct ?? 0)}%)`
    ).join("; ") + ".")
  }
  const json = process.env.BENCH_JSON
  if (json !== undefined && json !== "") {
    writeFileSync(json, JSON.stringify({
      settings,
      targets: selected,
      rounds: rounds.map((r) => ({ index: r.index, order: r.order, retries: r.retries, runs: Object.fromEntries(r.runs) })),
      discarded
    }, null, 1))
  }

  if (profiling) {
    out.push("", "## CPU profiles: self time per request during the load runs (µs)", "")
    const results = new Map<TargetName, ProfileResult>()
    for (const name of selected) {
      const file = newestProfile(profileDirs.get(name)!)
      if (file === undefined) {
        out.push(`(no profile written for ${name})`)
        continue
      }
      results.set(name, analyseProfile(file, windows.get(name)!, served.get(name)!))
    }
    const names = [...results.keys()]
    out.push(
      `| category | ${names.join(" | ")} |`,
      `|---|${names.map(() => "---:").join("|")}|`
    )
    for (const category of CATEGORIES) {
      if (!names.some((n) => results.get(n)!.categories.some(([c]) => c === category))) continue
      out.push(
        `| ${category} | ${names.map((n) => (results.get(n)!.categories.find(([c]) => c === category)?.[1] ?? 0).toFixed(2)).join(" | ")} |`
      )
    }
    out.push(`| **total busy** | ${names.map((n) => `**${results.get(n)!.busyUsPerRequest.toFixed(1)}**`).join(" | ")} |`)
    out.push(`| requests profiled | ${names.map((n) => served.get(n)!.toLocaleString("en-US")).join(" | ")} |`)
    for (const name of names) {
      const r = results.get(name)!
      out.push("", `### ${name}: top self-time frames (µs/request)`, "", "| frame | µs/request |", "|---|---:|")
      for (const [label, us] of r.frames) out.push(`| ${label.replace(/\|/g, "\\|")} | ${us.toFixed(2)} |`)
    }
  }

  const report = out.join("\n") + "\n"
  console.log(`\n${report}`)
  const target = process.env.BENCH_OUT
  if (target !== undefined && target !== "") {
    writeFileSync(target, report)
    log(`wrote ${target}`)
  }
  log(`done in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`)
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error("[adapters] failed:", error instanceof Error ? error.message : error)
    process.exit(1)
  }
)
