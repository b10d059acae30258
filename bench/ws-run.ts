/**
 * The WebSocket part of `npm run bench`: request/response round trips per
 * second over 1 and over 100 connections against the gateway (`ping` after
 * the handshake) and, in the same run, a plain `ws` server doing the same
 * JSON work (`ws-baseline-server.ts`); then resident memory per idle
 * connection (1,000 connections). Writes bench/results/ws-latest.md.
 *
 * Environment: BENCH_WS_DURATION_S (default 5), BENCH_WS_ROUNDS (default 2),
 * BENCH_WS_IDLE (idle connections for the memory figure, default 1000).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, installCleanup, onExit, type ServerProcess, startServer } from "./processes.ts"
import { BENCH_ADMIN_TOKEN } from "./sample.ts"
import { closeAll, openMany, rssBytes, type RoundTripRun, runRoundTrips } from "./ws-bench.ts"

const env = (name: string, fallback: number) => {
  const raw = process.env[name]
  const value = raw === undefined || raw === "" ? fallback : Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`)
  return value
}
const seconds = env("BENCH_WS_DURATION_S", 5)
const rounds = env("BENCH_WS_ROUNDS", 2)
const idleCount = env("BENCH_WS_IDLE", 1000)

const distRoot = fileURLToPath(new URL("../", import.meta.url))
const resultsDir = fileURLToPath(new URL("../../bench/results/", import.meta.url))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const best = (runs: ReadonlyArray<RoundTripRun>): RoundTripRun => runs.reduce((a, b) => (b.perSecond > a.perSecond ? b : a))

const main = async () => {
  installCleanup()
  const home = mkdtempSync(join(tmpdir(), "svc-bench-ws-"))
  const removeHome = onExit(() => rmSync(home, { recursive: true, force: true }))
  const [gatewayPort, baselinePort] = [await freePort(), await freePort()]
  let gateway: ServerProcess | undefined
  let baseline: ServerProcess | undefined
  try {
    gateway = await startServer({
      name: "gateway",
      script: join(distRoot, "cli", "main.mjs"),
      args: ["serve"],
      port: gatewayPort,
      env: { ...process.env, SVC_HOME: home, SVC_PORT: String(gatewayPort), SVC_ADMIN_TOKEN: BENCH_ADMIN_TOKEN, SVC_LOG_LEVEL: "Error", SVC_AUTH_RATE_LIMIT_MAX: "100000" }
    })
    baseline = await startServer({
      name: "ws baseline",
      script: join(distRoot, "bench", "ws-baseline-server.js"),
      args: [String(baselinePort)],
      port: baselinePort,
      env: { ...process.env, BENCH_TOKEN: BENCH_ADMIN_TOKEN }
    })
    const targets = [
      { name: "gateway", server: gateway, handshake: true },
      { name: "ws baseline", server: baseline, handshake: false }
    ] as const
    const results = new Map<string, Map<number, Array<RoundTripRun>>>()
    for (const connections of [1, 100]) {
      const sockets = new Map<string, Awaited<ReturnType<typeof openMany>>>()
      for (const t of targets) sockets.set(t.name, await openMany(t.server.url, BENCH_ADMIN_TOKEN, t.handshake, connections))
      for (const t of targets) await runRoundTrips(sockets.get(t.name)!, 1) // warm-up
      for (let r = 0; r < rounds; r++) {
        for (const t of targets) {
          const run = await runRoundTrips(sockets.get(t.name)!, seconds)
          const byTarget = results.get(t.name) ?? new Map<number, Array<RoundTripRun>>()
          byTarget.set(connections, [...(byTarget.get(connections) ?? []), run])
          results.set(t.name, byTarget)
        }
      }
      for (const t of targets) await closeAll(sockets.get(t.name)!)
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

    const row = (name: string, connections: number) => {
      const run = best(results.get(name)!.get(connections)!)
      return `| ${name} | ${connections} | ${Math.round(run.perSecond).toLocaleString("en-US")} | ${run.p50Ms.toFixed(2)} | ${run.p99Ms.toFixed(2)} |`
    }
    const ratio = (connections: number) =>
      best(results.get("gateway")!.get(connections)!).perSecond / best(results.get("ws baseline")!.get(connections)!).perSecond
    const report = [
      "# Benchmark: WebSocket request/response",
      "",
      `- Date: ${new Date().toISOString()}`,
      `- Node: ${process.version}`,
      `- CPU: ${cpus()[0]?.model ?? "unknown"} (${cpus().length} cores)`,
      `- Load: closed loop (send \`ping\`, await its response) per connection, ${rounds} rounds of ${seconds} s per target, interleaved; best round shown`,
      "",
      "| target | connections | round trips/s | p50 ms | p99 ms |",
      "|---|---:|---:|---:|---:|",
      row("gateway", 1),
      row("ws baseline", 1),
      row("gateway", 100),
      row("ws baseline", 100),
      "",
      `**gateway / baseline round trips: ${ratio(1).toFixed(2)}x over 1 connection, ${ratio(100).toFixed(2)}x over 100** (target >= 0.8x)`,
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
    await baseline?.stop()
    removeHome()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
