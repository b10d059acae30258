/**
 * Agent turn overhead (issue 25 §8 "Bench"; part of `npm run bench`,
 * `npm run bench:agent` alone): turns per second and p50/p99 of
 * `POST /agent/turn` on a gateway process (the bundled CLI, SQLite in its own
 * `$SVC_HOME`, `SVC_AGENT_ENABLED=1`, `SVC_AGENT_MODEL=builtin/echo`), on one
 * thread (its history grows turn after turn) and on a new thread per turn (a
 * new session each), side by side in the same run, interleaved batch by
 * batch, with:
 *
 * - **bare** `LanguageModel.generateText` and `streamText` (drained) on the same
 *   `builtin/echo` model in this process, prompt `[system, user]`: the least a
 *   plain program does for a turn (the issue's reference);
 * - **bare + SQLite commit**: the bare call, then the exchange stored with one
 *   prepared `INSERT` (autocommit) through `libsql` in a WAL database with the
 *   gateway's `synchronous`: the least a program that keeps its turns does;
 * - **runtime**: `AgentRuntime.turn` in this process (no HTTP): the whole
 *   gateway's services built here (`gatewayServices`, SQLite in a file of its
 *   own home), so HTTP's share and the runtime's share separate; its SQL
 *   statements per turn are counted (effect/sql's statement transformer) on
 *   a new thread and on the one thread at its final length;
 * - **plain HTTP**: bench/agent-baseline-server.ts, a `node:http` process doing
 *   the echo turn with no session or storage: the floor of a turn over HTTP.
 *
 * The gateway's own cost per turn = gateway p50 − bare p50 (target ≤ 2 ms,
 * {@link TARGET_OVERHEAD_MS}). CPU per turn: this process's user + system time
 * (in-process cases), the server process's from `/proc` (HTTP cases). Then a
 * throughput phase: `BENCH_AGENT_CONCURRENCY` clients on new threads for
 * `BENCH_AGENT_THROUGHPUT_S` seconds against the gateway, the runtime and the
 * plain server. Writes bench/results/agent-latest.md.
 *
 * Environment (optional): BENCH_AGENT_N (measured turns per case, default
 * 400), BENCH_AGENT_BATCH (turns per interleaved batch, default 25),
 * BENCH_AGENT_WARMUP (turns per case first, default 100),
 * BENCH_AGENT_CONCURRENCY (default 8), BENCH_SQLITE_SYNCHRONOUS (FULL, the
 * default, or NORMAL: the gateway's `SVC_SQLITE_SYNCHRONOUS`, the in-process
 * runtime's and the plain commit's), BENCH_AGENT_THROUGHPUT_S (default 3; 0
 * skips), BENCH_CPU_PROF=1 (the gateway under `--cpu-prof` and the in-process
 * runtime under the inspector's profiler; top frames printed, report to
 * bench/results/agent-profiled.md).
 *
 * @module
 */
// Must come first, as in src/main.ts: the gateway decodes through Effect's Schema JIT compiler.
import "effect/schema/SchemaJITCompiler/enable"
import { Effect, Layer, ManagedRuntime, References, Stream } from "effect"
import type { LanguageModel, Prompt } from "effect/ai"
import { Statement } from "effect/sql"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import Database from "libsql"
import { Agent, request } from "node:http"
import { Session } from "node:inspector/promises"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { defaultSettings, GatewayConfigLive, gatewayServices } from "../src/app/gateway.ts"
import { AgentRuntime } from "../services/agent/AgentRuntime.ts"
import { makeEcho } from "../services/agent/providers/builtin.ts"
import { freePort, installCleanup, onExit, processCpuSeconds, type ServerProcess, startServer } from "./processes.ts"
import { newestProfile, renderProfile, summariseProfile } from "./profile.ts"
import { BENCH_ADMIN_TOKEN } from "./sample.ts"

const positive = (name: string, fallback: number, min = 1): number => {
  const raw = process.env[name]
  const value = raw === undefined || raw === "" ? fallback : Number(raw)
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`)
  return value
}
const N = positive("BENCH_AGENT_N", 400)
const BATCH = positive("BENCH_AGENT_BATCH", 25)
const WARMUP = positive("BENCH_AGENT_WARMUP", 100, 0)
const CONCURRENCY = positive("BENCH_AGENT_CONCURRENCY", 8)
const THROUGHPUT_S = positive("BENCH_AGENT_THROUGHPUT_S", 3, 0)
const PROFILE = process.env.BENCH_CPU_PROF === "1"
const SYNCHRONOUS = ((raw) => {
  if (raw === undefined || raw === "") return "FULL" as const
  if (raw !== "FULL" && raw !== "NORMAL") throw new Error(`BENCH_SQLITE_SYNCHRONOUS must be FULL or NORMAL, got ${JSON.stringify(raw)}`)
  return raw
})(process.env.BENCH_SQLITE_SYNCHRONOUS)
/** The gateway's own cost per turn at p50, ms (issue 25 §8). */
export const TARGET_OVERHEAD_MS = 2

const MESSAGE = "Hello agent, what is the weather like in Lisbon today?"
const CHANNEL = "bench"

const distRoot = fileURLToPath(new URL("../", import.meta.url))
const resultsDir = fileURLToPath(new URL("../../bench/results/", import.meta.url))
const profileDir = join(resultsDir, "profiles", "agent-gateway")
const log = (message: string) => console.error(`[agent] ${message}`)

// ---------------------------------------------------------------------------------------------------------------
// Clients

/** A keep-alive HTTP client of `POST /agent/turn`; resolves the reply, rejects on anything but 200. */
const httpClient = (url: string, sockets: number) => {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets })
  const { hostname, port } = new URL(url)
  return (threadId: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ channel: CHANNEL, thread_id: threadId, message: MESSAGE })
      const req = request({
        host: hostname,
        port,
        method: "POST",
        path: "/agent/turn",
        agent,
        headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
      }, (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (text += chunk))
        res.on("end", () => {
          if (res.statusCode !== 200) return reject(new Error(`${url}: ${res.statusCode} ${text}`))
          resolve((JSON.parse(text) as { reply: string }).reply)
        })
        res.on("error", reject)
      })
      req.on("error", reject)
      req.end(body)
    })
}

const barePrompt: Prompt.RawInput = [
  { role: "system", content: `You are agent "default", answering on channel "${CHANNEL}".` },
  { role: "user", content: [{ type: "text", text: MESSAGE }] }
]

// ---------------------------------------------------------------------------------------------------------------
// Measuring

type CaseName =
  | "bare generateText"
  | "bare streamText"
  | "bare generateText + SQLite commit"
  | "runtime, one thread"
  | "runtime, new thread per turn"
  | "gateway HTTP, one thread"
  | "gateway HTTP, new thread per turn"
  | "plain HTTP"

interface Case {
  readonly name: CaseName
  /** One turn; `i` numbers the turns of this case (new threads use it). */
  readonly run: (i: number) => Promise<string>
  /** The server process whose CPU counts (HTTP cases); else this process's. */
  readonly server?: ServerProcess
}

interface CaseResult {
  readonly name: CaseName
  readonly turns: number
  readonly p50: number
  readonly p99: number
  readonly mean: number
  /** Turns per second, one at a time (turns ÷ the time spent in them). */
  readonly perSecond: number
  /** CPU ms per turn: this process's (in-process cases), the server's (HTTP cases). */
  readonly cpuMs: number
  /** HTTP cases: this process's (the client's) CPU ms per turn. */
  readonly clientCpuMs?: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

const cpuNow = () => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1000
}

/** Runs every case's turns in interleaved batches (order rotated each round), after a warm-up of each. */
const measure = async (cases: ReadonlyArray<Case>): Promise<Array<CaseResult>> => {
  const counters = new Map<CaseName, number>(cases.map((c) => [c.name, 0]))
  const next = (c: Case) => {
    const i = counters.get(c.name)!
    counters.set(c.name, i + 1)
    return i
  }
  for (const c of cases) for (let i = 0; i < WARMUP; i++) await c.run(next(c))
  const samples = new Map<CaseName, Array<number>>(cases.map((c) => [c.name, []]))
  const cpu = new Map<CaseName, { own: number; server: number }>(cases.map((c) => [c.name, { own: 0, server: 0 }]))
  const rounds = Math.ceil(N / BATCH)
  for (let round = 0; round < rounds; round++) {
    const shift = round % cases.length
    for (const c of [...cases.slice(shift), ...cases.slice(0, shift)]) {
      const times = samples.get(c.name)!
      const size = Math.min(BATCH, N - times.length)
      const s0 = c.server === undefined ? 0 : processCpuSeconds(c.server.pid) ?? 0
      const c0 = cpuNow()
      for (let k = 0; k < size; k++) {
        const i = next(c)
        const t0 = performance.now()
        const reply = await c.run(i)
        times.push(performance.now() - t0)
        if (reply !== MESSAGE) throw new Error(`${c.name}: unexpected reply ${JSON.stringify(reply)}`)
      }
      const used = cpu.get(c.name)!
      used.own += cpuNow() - c0
      if (c.server !== undefined) used.server += ((processCpuSeconds(c.server.pid) ?? 0) - s0) * 1000
    }
    if ((round + 1) % 10 === 0) log(`round ${round + 1}/${rounds}`)
  }
  return cases.map((c) => {
    const times = samples.get(c.name)!
    const sorted = [...times].sort((a, b) => a - b)
    const total = times.reduce((a, b) => a + b, 0)
    const used = cpu.get(c.name)!
    return {
      name: c.name,
      turns: times.length,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      mean: total / times.length,
      perSecond: times.length / (total / 1000),
      cpuMs: (c.server === undefined ? used.own : used.server) / times.length,
      ...(c.server === undefined ? {} : { clientCpuMs: used.own / times.length })
    }
  })
}

interface ThroughputResult {
  readonly name: string
  readonly turns: number
  readonly perSecond: number
  readonly p50: number
  readonly cpuMs: number
}

/** `CONCURRENCY` clients each running turns on new threads for `THROUGHPUT_S` seconds. */
const throughput = async (name: string, run: (i: number) => Promise<string>, server?: ServerProcess): Promise<ThroughputResult> => {
  let i = 0
  const times: Array<number> = []
  const s0 = server === undefined ? 0 : processCpuSeconds(server.pid) ?? 0
  const c0 = cpuNow()
  const started = performance.now()
  const deadline = started + THROUGHPUT_S * 1000
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now()
      await run(i++)
      times.push(performance.now() - t0)
    }
  }))
  const elapsed = (performance.now() - started) / 1000
  const used = server === undefined ? cpuNow() - c0 : ((processCpuSeconds(server.pid) ?? 0) - s0) * 1000
  const sorted = times.sort((a, b) => a - b)
  return { name, turns: times.length, perSecond: times.length / elapsed, p50: percentile(sorted, 0.5), cpuMs: used / times.length }
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1))

interface StatementCount {
  readonly total: number
  /** By kind: `3 SELECT, 2 INSERT`. */
  readonly kinds: string
}

const render = (
  results: ReadonlyArray<CaseResult>,
  concurrent: ReadonlyArray<ThroughputResult>,
  loads: ReadonlyArray<string>,
  profiles: string,
  counted: { readonly fresh: StatementCount; readonly long: StatementCount }
): string => {
  const by = (name: CaseName) => results.find((r) => r.name === name)!
  const bare = by("bare generateText")
  const bareStream = by("bare streamText")
  const lines = [
    `# Agent turn overhead (issue 25 §8)`,
    ``,
    `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}. ` +
    `${N} measured turns per case (one at a time) after ${WARMUP} warm-up, interleaved in batches of ${BATCH} with the order rotated ` +
    `every round; message ${JSON.stringify(MESSAGE)}; model \`builtin/echo\`. Gateway: \`node dist/cli/main.mjs serve\`, SQLite in its ` +
    `own home, \`SVC_AGENT_ENABLED=1\`, SQLite \`synchronous\` ${SYNCHRONOUS} (all three databases)${PROFILE ? ", **under `--cpu-prof`**" : ""}. Load average (1 min) at start / after the ` +
    `sequential cases / end: ${loads.join(" / ")} on ${cpus().length} cores.`,
    ``,
    `| case | turns | p50 ms | p99 ms | mean ms | turns/s (one at a time) | CPU ms per turn | p50 − bare generateText |`,
    `|---|---:|---:|---:|---:|---:|---:|---:|`
  ]
  for (const r of results) {
    const cpu = r.clientCpuMs === undefined ? ms(r.cpuMs) : `${ms(r.cpuMs)} server + ${ms(r.clientCpuMs)} client`
    lines.push(
      `| ${r.name} | ${r.turns} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.mean)} | ${Math.round(r.perSecond)} | ${cpu} | ` +
        `${r === bare ? "—" : `+${ms(r.p50 - bare.p50)}`} |`
    )
  }
  const verdict = (name: CaseName) => {
    const own = by(name).p50 - bare.p50
    return `**${ms(own)} ms** (${own <= TARGET_OVERHEAD_MS ? "met" : "**not met**"}; ${(by(name).p50 / bare.p50).toFixed(0)}× the bare call; ` +
      `against bare streamText ${ms(by(name).p50 - bareStream.p50)} ms; against bare + SQLite commit ` +
      `${ms(by(name).p50 - by("bare generateText + SQLite commit").p50)} ms)`
  }
  lines.push(
    ``,
    `The gateway's own cost per turn (gateway p50 − bare generateText p50; target ≤ ${TARGET_OVERHEAD_MS} ms): ` +
      `one thread ${verdict("gateway HTTP, one thread")}, new thread per turn ${verdict("gateway HTTP, new thread per turn")}. ` +
      `Of it, HTTP (gateway HTTP − runtime in process): ${ms(by("gateway HTTP, one thread").p50 - by("runtime, one thread").p50)} / ` +
      `${ms(by("gateway HTTP, new thread per turn").p50 - by("runtime, new thread per turn").p50)} ms; the runtime (runtime − bare): ` +
      `${ms(by("runtime, one thread").p50 - bare.p50)} / ${ms(by("runtime, new thread per turn").p50 - bare.p50)} ms; ` +
      `a plain \`node:http\` echo turn costs ${ms(by("plain HTTP").p50 - bare.p50)} ms over the bare call.`,
    ``,
    `SQL statements per turn (the runtime in process, besides BEGIN/COMMIT): new thread ${counted.fresh.total} ` +
      `(${counted.fresh.kinds}); the one thread, its last turn, ${counted.long.total} (${counted.long.kinds}).`,
    ``
  )
  if (concurrent.length > 0) {
    lines.push(
      `Throughput, ${CONCURRENCY} concurrent clients, a new thread per turn, ${THROUGHPUT_S} s each:`,
      ``,
      `| target | turns | turns/s | p50 ms | CPU ms per turn |`,
      `|---|---:|---:|---:|---:|`,
      ...concurrent.map((t) => `| ${t.name} | ${t.turns} | ${Math.round(t.perSecond)} | ${ms(t.p50)} | ${ms(t.cpuMs)} |`),
      ``
    )
  }
  lines.push(
    `CPU per turn: this process's user + system time (in-process cases); for HTTP cases the server process's (from ` +
      `\`/proc\`, 10 ms ticks summed over the batches) and this process's (the client). "One thread": every turn on one ` +
      `thread, so its history grows by two messages a turn (${WARMUP + N} turns by the end); "new thread per turn": a new session each.`,
    ``
  )
  return lines.join("\n") + profiles
}

// ---------------------------------------------------------------------------------------------------------------

const main = async () => {
  installCleanup()
  const startedAt = Date.now()
  const loads = [loadavg()[0]!.toFixed(1)]
  const home = mkdtempSync(join(tmpdir(), "svc-bench-agent-"))
  const removeHome = onExit(() => rmSync(home, { recursive: true, force: true }))
  const gatewayPort = await freePort()
  const plainPort = await freePort()
  if (PROFILE) mkdirSync(profileDir, { recursive: true })
  log(`starting gateway on :${gatewayPort}${PROFILE ? " (--cpu-prof)" : ""} and the plain server on :${plainPort}`)
  const [gateway, plain] = await Promise.all([
    startServer({
      name: "gateway",
      script: join(distRoot, "cli/main.mjs"),
      args: ["serve"],
      nodeArgs: PROFILE ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [],
      env: {
        ...process.env,
        SVC_HOST: "127.0.0.1",
        SVC_PORT: String(gatewayPort),
        SVC_HOME: join(home, "gateway"),
        SVC_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
        SVC_LOG_LEVEL: "Error",
        SVC_AGENT_ENABLED: "1",
        SVC_AGENT_MODEL: "builtin/echo",
        SVC_SQLITE_SYNCHRONOUS: SYNCHRONOUS
      },
      port: gatewayPort
    }),
    startServer({
      name: "plain",
      script: join(distRoot, "bench/agent-baseline-server.js"),
      env: { ...process.env, AGENT_BASELINE_PORT: String(plainPort), AGENT_BASELINE_TOKEN: BENCH_ADMIN_TOKEN },
      port: plainPort
    })
  ])

  // The gateway's services in this process, on SQLite in a home of their own.
  const settings = defaultSettings({
    home: join(home, "inprocess"),
    adminToken: BENCH_ADMIN_TOKEN,
    logLevel: "Error",
    agentEnabled: true,
    agentModel: "builtin/echo",
    sqliteSynchronous: SYNCHRONOUS
  })
  // Statements the in-process runtime runs, counted only while `counting`.
  const statements: Array<string> = []
  let counting = false
  const runtime = ManagedRuntime.make(
    gatewayServices().pipe(
      Layer.provideMerge(GatewayConfigLive(settings)),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "None")),
      Layer.provideMerge(Layer.succeed(Statement.CurrentTransformer, (statement) => {
        if (counting) statements.push(statement.compile()[0].replace(/\s+/g, " ").split(" ", 1)[0]!.toUpperCase())
        return Effect.succeed(statement)
      }))
    )
  )
  /** The statements one turn of `threadId` runs, by kind (`SELECT`, `INSERT`, …). */
  const countStatements = async (threadId: string) => {
    statements.length = 0
    counting = true
    await turn(threadId)
    counting = false
    const kinds = new Map<string, number>()
    for (const kind of statements) kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
    return { total: statements.length, kinds: [...kinds].map(([kind, n]) => `${n} ${kind}`).join(", ") }
  }
  const agent = await runtime.runPromise(Effect.gen(function*() {
    return yield* AgentRuntime
  }))
  const turn = (threadId: string) =>
    runtime.runPromise(Effect.map(agent.turn({ channel: CHANNEL, thread_id: threadId, message: MESSAGE }), (r) => r.reply))
  const model: LanguageModel.LanguageModel = Effect.runSync(makeEcho)
  // A plain program's store of its turns: one table, one prepared INSERT per turn (autocommit).
  const plainDb = new Database(join(home, "plain.db"))
  plainDb.exec("PRAGMA journal_mode = WAL")
  if (SYNCHRONOUS === "NORMAL") plainDb.exec("PRAGMA synchronous = NORMAL")
  plainDb.exec("CREATE TABLE turns (id INTEGER PRIMARY KEY, thread_id TEXT NOT NULL, message TEXT NOT NULL, reply TEXT NOT NULL, at TEXT NOT NULL)")
  const insertTurn = plainDb.prepare("INSERT INTO turns (thread_id, message, reply, at) VALUES (?, ?, ?, ?)")
  const gatewayTurn = httpClient(gateway.url, CONCURRENCY)
  const plainTurn = httpClient(plain.url, CONCURRENCY)

  let report = ""
  try {
    const cases: ReadonlyArray<Case> = [
      { name: "bare generateText", run: () => Effect.runPromise(Effect.map(model.generateText({ prompt: barePrompt }), (r) => r.text)) },
      {
        name: "bare streamText",
        run: () =>
          Effect.runPromise(
            model.streamText({ prompt: barePrompt }).pipe(Stream.runFold(() => "", (text, part) => (part.type === "text-delta" ? text + part.delta : text)))
          )
      },
      {
        name: "bare generateText + SQLite commit",
        run: (i) =>
          Effect.runPromise(Effect.map(model.generateText({ prompt: barePrompt }), (r) => {
            insertTurn.run(`plain-${i}`, MESSAGE, r.text, new Date().toISOString())
            return r.text
          }))
      },
      { name: "runtime, one thread", run: () => turn("one") },
      { name: "runtime, new thread per turn", run: (i) => turn(`rt-${i}`) },
      { name: "gateway HTTP, one thread", run: () => gatewayTurn("one"), server: gateway },
      { name: "gateway HTTP, new thread per turn", run: (i) => gatewayTurn(`gw-${i}`), server: gateway },
      { name: "plain HTTP", run: (i) => plainTurn(`p-${i}`), server: plain }
    ]
    log(`checking every case answers the echo`)
    for (const c of cases) {
      const reply = await c.run(-1)
      if (reply !== MESSAGE) throw new Error(`${c.name} answered ${JSON.stringify(reply)}`)
    }
    log(`${WARMUP} warm-up + ${N} measured turns per case, batches of ${BATCH}`)
    const results = await measure(cases)
    for (const r of results) log(`${r.name}: p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms, ${Math.round(r.perSecond)} turns/s, CPU ${ms(r.cpuMs)} ms/turn`)
    loads.push(loadavg()[0]!.toFixed(1))
    const counted = { fresh: await countStatements("count-new"), long: await countStatements("one") }
    log(`statements per turn: new thread ${counted.fresh.total}, one thread ${counted.long.total}`)

    const concurrent: Array<ThroughputResult> = []
    if (THROUGHPUT_S > 0) {
      for (const [name, run, server] of [
        ["gateway HTTP", (i: number) => gatewayTurn(`c-gw-${i}`), gateway],
        ["runtime in process", (i: number) => turn(`c-rt-${i}`), undefined],
        ["plain HTTP", (i: number) => plainTurn(`c-p-${i}`), plain]
      ] as const) {
        const t = await throughput(name, run, server)
        log(`throughput ${name}: ${Math.round(t.perSecond)} turns/s, p50 ${ms(t.p50)} ms`)
        concurrent.push(t)
      }
    }

    let profiles = ""
    if (PROFILE) {
      // The runtime alone in this process: a new thread per turn, under the inspector's profiler.
      const session = new Session()
      session.connect()
      await session.post("Profiler.enable")
      await session.post("Profiler.start")
      for (let i = 0; i < N; i++) await turn(`prof-${i}`)
      const { profile } = await session.post("Profiler.stop")
      session.disconnect()
      const file = join(resultsDir, "agent-runtime.cpuprofile")
      mkdirSync(resultsDir, { recursive: true })
      writeFileSync(file, JSON.stringify(profile))
      profiles += `\n## CPU profiles (self time)\n\n${renderProfile(`AgentRuntime.turn in process, ${N} turns on new threads: ${file}`, summariseProfile(file, 30), N)}`
    }
    loads.push(loadavg()[0]!.toFixed(1))
    await gateway.stop()
    if (PROFILE) {
      const file = newestProfile(profileDir, startedAt)
      const served = (WARMUP + N) * 2 + 2 + (concurrent.find((t) => t.name === "gateway HTTP")?.turns ?? 0)
      profiles += file === undefined ? `\n(no gateway .cpuprofile was written)\n` : `\n${renderProfile(`gateway process (whole lifetime): ${file}`, summariseProfile(file, 30), served)}`
    }
    report = render(results, concurrent, loads, profiles, counted)
  } finally {
    await Promise.all([gateway.stop(), plain.stop()])
    await runtime.dispose()
    plainDb.close()
    removeHome()
  }
  console.log(report)
  mkdirSync(resultsDir, { recursive: true })
  const out = join(resultsDir, PROFILE ? "agent-profiled.md" : "agent-latest.md")
  writeFileSync(out, report)
  log(`wrote ${out} in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`)
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error("[agent] failed:", error)
    process.exit(1)
  }
)
