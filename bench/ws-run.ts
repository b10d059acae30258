/**
 * The WebSocket part of `npm run bench`: request/response round trips per
 * second over 1 and over 100 connections against the gateway (`ping` after
 * the handshake) and, in the same run, a plain `ws` server doing the same
 * JSON work (`ws-baseline-server.ts`); then event fan-out to N operator
 * clients and the presence events of their connection storm (`ws-fanout.ts`);
 * then resident memory per idle connection (1,000 connections). Writes
 * bench/results/ws-latest.md.
 *
 * Environment: BENCH_WS_DURATION_S (default 5), BENCH_WS_ROUNDS (default 2),
 * BENCH_WS_IDLE (idle connections for the memory figure, default 1000),
 * BENCH_WS_FANOUT (operator clients of the fan-out, default 1000),
 * BENCH_WS_FANOUT_ROUNDS (fan-out repetitions per target, default 50),
 * BENCH_WS_BEFORE_DIST (optional: the `dist/` of another build, e.g. main's,
 * run as a third target "gateway (before)" interleaved with the others).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, installCleanup, machineBusySeconds, onExit, processCpuSeconds, type ServerProcess, startServer } from "./processes.ts"
import { BENCH_ADMIN_TOKEN } from "./sample.ts"
import { closeAll, openMany, rssBytes, type RoundTripRun, runRoundTrips } from "./ws-bench.ts"
import { type Audience, connectAudience, fanOutOnce } from "./ws-fanout.ts"

const env = (name: string, fallback: number) => {
  const raw = process.env[name]
  const value = raw === undefined || raw === "" ? fallback : Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`)
  return value
}
const seconds = env("BENCH_WS_DURATION_S", 5)
const rounds = env("BENCH_WS_ROUNDS", 2)
const idleCount = env("BENCH_WS_IDLE", 1000)
const fanOutCount = env("BENCH_WS_FANOUT", 1000)
const fanOutRounds = env("BENCH_WS_FANOUT_ROUNDS", 50)
const beforeDist = process.env.BENCH_WS_BEFORE_DIST

const distRoot = fileURLToPath(new URL("../", import.meta.url))
const resultsDir = fileURLToPath(new URL("../../bench/results/", import.meta.url))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const best = (runs: ReadonlyArray<RoundTripRun>): RoundTripRun => runs.reduce((a, b) => (b.perSecond > a.perSecond ? b : a))
const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}
const median = (values: ReadonlyArray<number>) => percentile(values, 50)

const main = async () => {
  installCleanup()
  const home = mkdtempSync(join(tmpdir(), "svc-bench-ws-"))
  const removeHome = onExit(() => rmSync(home, { recursive: true, force: true }))
  const homeBefore = mkdtempSync(join(tmpdir(), "svc-bench-ws-before-"))
  const removeHomeBefore = onExit(() => rmSync(homeBefore, { recursive: true, force: true }))
  const [gatewayPort, baselinePort, beforePort] = [await freePort(), await freePort(), await freePort()]
  let gateway: ServerProcess | undefined
  let baseline: ServerProcess | undefined
  let before: ServerProcess | undefined
  try {
    /** `svc serve` of the build in `dist` on `port`, with its own home. */
    const startGateway = (name: string, dist: string, port: number, svcHome: string) =>
      startServer({
        name,
        script: join(dist, "cli", "main.mjs"),
        args: ["serve"],
        port,
        env: { ...process.env, SVC_HOME: svcHome, SVC_PORT: String(port), SVC_ADMIN_TOKEN: BENCH_ADMIN_TOKEN, SVC_LOG_LEVEL: "Error", SVC_AUTH_RATE_LIMIT_MAX: "100000" }
      })
    gateway = await startGateway("gateway", distRoot, gatewayPort, home)
    baseline = await startServer({
      name: "ws baseline",
      script: join(distRoot, "bench", "ws-baseline-server.js"),
      args: [String(baselinePort)],
      port: baselinePort,
      env: { ...process.env, BENCH_TOKEN: BENCH_ADMIN_TOKEN }
    })
    if (beforeDist !== undefined && beforeDist !== "") {
      before = await startGateway("gateway (before)", beforeDist, beforePort, homeBefore)
    }
    const targets: ReadonlyArray<{ readonly name: string; readonly server: ServerProcess; readonly handshake: boolean }> = [
      { name: "gateway", server: gateway, handshake: true },
      ...(before === undefined ? [] : [{ name: "gateway (before)", server: before, handshake: true }]),
      { name: "ws baseline", server: baseline, handshake: false }
    ]
    const gateways = targets.filter((t) => t.handshake)
    const results = new Map<string, Map<number, Array<RoundTripRun>>>()
    /** Server CPU µs per round trip, per target and connection count, one value per round. */
    const cpuPerTrip = new Map<string, Array<number>>()
    const busyAtStart = machineBusySeconds()
    const startedAt = performance.now()
    const ownCpuAtStart = process.cpuUsage()
    const serversCpu = () => targets.reduce((sum, t) => sum + (processCpuSeconds(t.server.pid) ?? 0), 0)
    const serversCpuAtStart = serversCpu()
    for (const connections of [1, 100]) {
      const sockets = new Map<string, Awaited<ReturnType<typeof openMany>>>()
      for (const t of targets) sockets.set(t.name, await openMany(t.server.url, BENCH_ADMIN_TOKEN, t.handshake, connections))
      for (const t of targets) await runRoundTrips(sockets.get(t.name)!, 1) // warm-up
      for (let r = 0; r < rounds; r++) {
        for (const t of targets) {
          const cpuBefore = processCpuSeconds(t.server.pid) ?? 0
          const run = await runRoundTrips(sockets.get(t.name)!, seconds)
          const cpuKey = `${t.name}/${connections}`
          cpuPerTrip.set(cpuKey, [...(cpuPerTrip.get(cpuKey) ?? []), (((processCpuSeconds(t.server.pid) ?? 0) - cpuBefore) * 1e6) / run.roundTrips])
          const byTarget = results.get(t.name) ?? new Map<number, Array<RoundTripRun>>()
          byTarget.set(connections, [...(byTarget.get(connections) ?? []), run])
          results.set(t.name, byTarget)
        }
      }
      for (const t of targets) await closeAll(sockets.get(t.name)!)
    }

    // Fan-out: N operator clients per target (their connection storm counted), then interleaved rounds.
    const audiences = new Map<string, Audience>()
    for (const t of targets) audiences.set(t.name, await connectAudience(t.server.url, BENCH_ADMIN_TOKEN, t.handshake, fanOutCount))
    const fanOut = new Map<string, Array<number>>(targets.map((t) => [t.name, []]))
    /** Server CPU per fan-out round (ms), one value per round. */
    const fanOutCpu = new Map<string, Array<number>>(targets.map((t) => [t.name, []]))
    /** Rounds (by target) where some open clients never got the event within 10 s: how many missed it. */
    const missedRounds = new Map<string, Array<number>>()
    const completed = (name: string) => fanOut.get(name)!.filter((ms) => !Number.isNaN(ms))
    for (const t of targets) await fanOutOnce(audiences.get(t.name)!) // warm-up
    for (let r = 0; r < fanOutRounds; r++) {
      for (const t of targets) {
        const cpuBefore = processCpuSeconds(t.server.pid) ?? 0
        const round = await fanOutOnce(audiences.get(t.name)!)
        fanOut.get(t.name)!.push(round.ms)
        if (round.missed > 0) missedRounds.set(t.name, [...(missedRounds.get(t.name) ?? []), round.missed])
        fanOutCpu.get(t.name)!.push(((processCpuSeconds(t.server.pid) ?? 0) - cpuBefore) * 1000)
        await sleep(20)
      }
    }
    const meanCpu = (name: string) => fanOutCpu.get(name)!.reduce((a, b) => a + b, 0) / fanOutRounds
    for (const t of targets) {
      const audience = audiences.get(t.name)!
      await closeAll([...audience.operators, audience.node])
    }
    const perRoundRatio = (name: string) => {
      const mine = fanOut.get(name)!
      const base = fanOut.get("ws baseline")!
      return median(mine.map((ms, i) => ms / base[i]).filter((x) => !Number.isNaN(x)))
    }

    const memory: Array<{ name: string; perConnection: number }> = []
    for (const t of targets) {
      await sleep(500)
      const before = rssBytes(t.server.pid)
      const sockets = await openMany(t.server.url, BENCH_ADMIN_TOKEN, t.handshake, idleCount)
      await sleep(1500)
      const after = rssBytes(t.server.pid)
      memory.push({ name: t.name, perConnection: (after - before) / idleCount })
      await closeAll(sockets)
    }

    const busy = (machineBusySeconds() ?? 0) - (busyAtStart ?? 0)
    const elapsedS = (performance.now() - startedAt) / 1000
    const own = process.cpuUsage(ownCpuAtStart)
    const ours = (own.user + own.system) / 1e6 + serversCpu() - serversCpuAtStart
    const otherCpu = busyAtStart === undefined
      ? "machine CPU unknown"
      : `the machine was busy ${(busy / elapsedS).toFixed(2)} of ${cpus().length} cores on average during the run, ` +
        `${(Math.max(0, busy - ours) / elapsedS).toFixed(2)} cores of it other processes ("other CPU")`
    const row = (name: string, connections: number) => {
      const run = best(results.get(name)!.get(connections)!)
      const cpu = median(cpuPerTrip.get(`${name}/${connections}`)!)
      return `| ${name} | ${connections} | ${Math.round(run.perSecond).toLocaleString("en-US")} | ${run.p50Ms.toFixed(2)} | ${run.p99Ms.toFixed(2)} | ${cpu.toFixed(1)} |`
    }
    const ratio = (connections: number, name = "gateway") =>
      best(results.get(name)!.get(connections)!).perSecond / best(results.get("ws baseline")!.get(connections)!).perSecond
    const roundRatios = (connections: number, name: string) => {
      const mine = results.get(name)!.get(connections)!
      const base = results.get("ws baseline")!.get(connections)!
      return mine.map((run, i) => run.perSecond / base[i].perSecond)
    }
    const cpuRatio = (name: string, connections: number) => {
      const mine = cpuPerTrip.get(`${name}/${connections}`)!
      const base = cpuPerTrip.get(`ws baseline/${connections}`)!
      return median(mine.map((x, i) => x / base[i]))
    }
    const ratioLine = (name: string) =>
      `- ${name}: best-round ratio ${ratio(1, name).toFixed(2)}x over 1 connection, ${ratio(100, name).toFixed(2)}x over 100; ` +
      `per-round ratios over 100: ${roundRatios(100, name).map((x) => x.toFixed(2)).join(", ")} (median ${median(roundRatios(100, name)).toFixed(2)}); ` +
      `server CPU per round trip ÷ plain ws (median per round): ${cpuRatio(name, 1).toFixed(2)}x over 1, ${cpuRatio(name, 100).toFixed(2)}x over 100`
    const report = [
      "# Benchmark: WebSocket request/response",
      "",
      `- Date: ${new Date().toISOString()}`,
      `- Node: ${process.version}`,
      `- CPU: ${cpus()[0]?.model ?? "unknown"} (${cpus().length} cores)`,
      `- Load: closed loop (send \`ping\`, await its response) per connection, ${rounds} rounds of ${seconds} s per target, interleaved; best round shown`,
      "",
      `- Machine: load average at the end ${loadavg().map((x) => x.toFixed(2)).join(" / ")}; ${otherCpu}`,
      "",
      "| target | connections | round trips/s | p50 ms | p99 ms | server CPU µs per round trip (median) |",
      "|---|---:|---:|---:|---:|---:|",
      ...[1, 100].flatMap((connections) => targets.map((t) => row(t.name, connections))),
      "",
      `**gateway / baseline round trips: ${ratio(1).toFixed(2)}x over 1 connection, ${ratio(100).toFixed(2)}x over 100** (target >= 0.8x)`,
      "",
      ...gateways.map((t) => ratioLine(t.name)),
      "",
      `## Event fan-out (one \`capability.ready\` event to ${fanOutCount} operator clients)`,
      "",
      `Time from the node's request until the last client has the event; ${fanOutRounds} rounds per target, interleaved.`,
      "",
      "| target | p50 ms | p99 ms | median per-round ratio to plain ws | server CPU ms per fan-out (mean) |",
      "|---|---:|---:|---:|---:|",
      ...targets.map((t) =>
        `| ${t.name} | ${percentile(completed(t.name), 50).toFixed(1)} | ${percentile(completed(t.name), 99).toFixed(1)} | ${
          perRoundRatio(t.name).toFixed(2)
        }x | ${meanCpu(t.name).toFixed(1)} |`
      ),
      "",
      `**gateway / plain ws fan-out time: ${perRoundRatio("gateway").toFixed(2)}x (median of per-round ratios; target <= 1.5x)**`,
      ...[...missedRounds].map(([name, missed]) =>
        `- ${name}: ${missed.length} round(s) where open clients missed the event within 10 s (${missed.join(", ")} clients); left out above`
      ),
      "",
      `## Connection storm (${fanOutCount} operator clients connecting, 50 at a time)`,
      "",
      "Events received by all clients together from the first connect until the server is quiet (presence announcements).",
      "",
      "| target | events | events per connection | seconds to the last event | clients the server dropped |",
      "|---|---:|---:|---:|---:|",
      ...gateways.map((t) => {
        const storm = audiences.get(t.name)!.storm
        return `| ${t.name} | ${storm.events.toLocaleString("en-US")} | ${(storm.events / storm.connections).toFixed(1)} | ${storm.seconds.toFixed(2)} | ${storm.dropped} |`
      }),
      "",
      `## Memory per idle connection (${idleCount} connections, RSS delta of the server process)`,
      "",
      "| target | KiB per connection |",
      "|---|---:|",
      ...memory.map((m) => `| ${m.name} | ${(m.perConnection / 1024).toFixed(1)} |`),
      "",
      "Target: under 100 KiB per idle gateway connection. The gateway's figure includes its per-connection actor (fibers, mailbox, heartbeat), the registry entry and the presence entry.",
      ""
    ].join("\n")
    console.log(report)
    mkdirSync(resultsDir, { recursive: true })
    writeFileSync(join(resultsDir, "ws-latest.md"), report)
  } finally {
    await gateway?.stop()
    await before?.stop()
    await baseline?.stop()
    removeHome()
    removeHomeBefore()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
