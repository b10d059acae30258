/**
 * The cluster part of `npm run bench` (`npm run bench:cluster` alone; issue
 * 27 §5): gateway processes on one PostgreSQL database with `SVC_CLUSTER=1`
 * (bench/cluster-instances.ts), three instances against one:
 * - cross-instance event latency: a `memory.create` sent over WebSocket to A,
 *   until its `memory.item.created` event reaches an operator client of C
 *   (and, for comparison, the same event on a client of A), p50/p99;
 * - approvals resolved per second: approvals raised by plans beforehand, then
 *   resolved by K concurrent `POST /approvals/:id/respond` spread round-robin
 *   over the instances;
 * - one-step workflow runs per second (an Http step to a local server; K runs
 *   in flight, started round-robin over the instances), with 1 and 3
 *   instances, and the scaling factor;
 * - the CPU each process used per run (gateways and the local PostgreSQL
 *   server, from /proc): the machine has few cores, so more processes cannot
 *   add CPU; the per-run CPU shows what each instance costs.
 * One gateway on PostgreSQL without `SVC_CLUSTER` is measured too, as the
 * reference for what cluster mode itself costs.
 * Targets: cross-instance p99 ≤ 50 ms; three instances at least as many
 * approvals and runs per second as one. Skipped (printed) without a reachable
 * PostgreSQL (`SVC_BENCH_DATABASE_URL`, else `SVC_TEST_DATABASE_URL`).
 * Writes bench/results/cluster-latest.{md,json}.
 *
 * Environment (all optional): BENCH_CLUSTER_DURATION_S (measured seconds per
 * workflow case, default 10), BENCH_CLUSTER_WARMUP_S (3), BENCH_CLUSTER_K
 * (requests in flight, 8), BENCH_CLUSTER_SAMPLES (latency samples, 300),
 * BENCH_CLUSTER_APPROVALS (approvals resolved per case, 300). Results are
 * written only with the defaults.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type WebSocket from "ws"
import { type BenchCluster, postgresCpuSeconds, startBenchCluster } from "./cluster-instances.ts"
import { installCleanup, processCpuSeconds, type ServerProcess } from "./processes.ts"
import { BENCH_ADMIN_TOKEN } from "./sample.ts"
import { openSocket } from "./ws-bench.ts"
import { connectWorkflowClient } from "./workflow-load.ts"
import { closedLoop, percentile } from "./workflow-loop.ts"
import { benchPostgresUrl, createSchema, dropSchema } from "./workflow-pg.ts"

const setting = (name: string, fallback: number): number => {
  const raw = process.env[name]
  const value = raw === undefined || raw === "" ? fallback : Number(raw)
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`)
  return value
}
const DEFAULTS = { duration: 10, warmup: 3, k: 8, samples: 300, approvals: 300 }
const config = {
  duration: setting("BENCH_CLUSTER_DURATION_S", DEFAULTS.duration),
  warmup: setting("BENCH_CLUSTER_WARMUP_S", DEFAULTS.warmup),
  k: setting("BENCH_CLUSTER_K", DEFAULTS.k),
  samples: setting("BENCH_CLUSTER_SAMPLES", DEFAULTS.samples),
  approvals: setting("BENCH_CLUSTER_APPROVALS", DEFAULTS.approvals)
}
const TARGET_P99_MS = 50
const resultsDir = fileURLToPath(new URL("../../bench/results/", import.meta.url))
const log = (message: string) => console.error(`[bench:cluster] ${message}`)
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const round = (n: number, digits = 2) => Number(n.toFixed(digits))
const headers = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" }

/** CPU of the gateways and PostgreSQL over a window, in ms per unit of work. */
interface CpuPerUnit {
  /** One entry per gateway process, in instance order. */
  readonly gateways_ms: ReadonlyArray<number>
  readonly gateways_total_ms: number
  /** The local PostgreSQL server's processes; null when it runs elsewhere. */
  readonly postgres_ms: number | null
}

/** Measures the CPU the processes use while `work` runs; `units` (known afterwards) divides it. */
const withCpu = async <A>(instances: ReadonlyArray<ServerProcess>, work: () => Promise<A>, units: (a: A) => number) => {
  const before = instances.map((i) => processCpuSeconds(i.pid) ?? Number.NaN)
  const pgBefore = postgresCpuSeconds()
  const result = await work()
  const n = Math.max(1, units(result))
  const gateways = instances.map((i, index) => round((((processCpuSeconds(i.pid) ?? Number.NaN) - before[index]) * 1000) / n))
  const pgAfter = postgresCpuSeconds()
  const cpu: CpuPerUnit = {
    gateways_ms: gateways,
    gateways_total_ms: round(gateways.reduce((a, b) => a + b, 0)),
    postgres_ms: pgBefore === undefined || pgAfter === undefined ? null : round(((pgAfter - pgBefore) * 1000) / n)
  }
  return { result, cpu }
}

/** A handshaken operator socket whose `memory.item.created` events are reported by title. */
const operatorSocket = async (url: string, onCreated: (title: string, at: number) => void): Promise<WebSocket> =>
  openSocket(url, BENCH_ADMIN_TOKEN, true, {
    onMessage: (data) => {
      const at = performance.now()
      const message = JSON.parse(data.toString()) as { type?: string; payload?: { item?: { title?: string } } }
      if (message.type === "memory.item.created" && message.payload?.item?.title !== undefined) onCreated(message.payload.item.title, at)
    }
  })

/** Cross-instance event latency: a change on `a`, its event on a client of `c` (and of `a`). */
const eventLatency = async (a: ServerProcess, c: ServerProcess) => {
  const seen = new Map<string, { local?: number; remote?: number }>()
  const waiters = new Map<string, () => void>()
  const record = (side: "local" | "remote") => (title: string, at: number) => {
    const entry = seen.get(title) ?? {}
    entry[side] = at
    seen.set(title, entry)
    if (entry.local !== undefined && entry.remote !== undefined) waiters.get(title)?.()
  }
  const onA = await operatorSocket(a.url, record("local"))
  const onC = await operatorSocket(c.url, record("remote"))
  const remote: Array<number> = []
  const local: Array<number> = []
  const added: Array<number> = []
  for (let i = 0; i < config.samples + 20; i++) {
    const title = `latency-${i}-${Date.now()}`
    const both = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no event for ${title} on both instances within 10 s`)), 10_000)
      waiters.set(title, () => (clearTimeout(timer), resolve()))
    })
    const sent = performance.now()
    onA.send(JSON.stringify({ request_id: title, type: "memory.create", payload: { item: { kind: "note", title, body_md: "bench" } } }))
    await both
    const entry = seen.get(title)!
    // The first 20 are a warm-up.
    if (i >= 20) {
      remote.push(entry.remote! - sent)
      local.push(entry.local! - sent)
      added.push(entry.remote! - entry.local!)
    }
    seen.delete(title)
    waiters.delete(title)
    await sleep(10)
  }
  onA.close()
  onC.close()
  const stats = (values: Array<number>) => {
    const sorted = [...values].sort((x, y) => x - y)
    return { p50_ms: round(percentile(sorted, 50)), p99_ms: round(percentile(sorted, 99)), max_ms: round(sorted.at(-1)!) }
  }
  return { samples: remote.length, on_c: stats(remote), on_a: stats(local), c_after_a: stats(added) }
}

/** Raises `count` approvals (plans over the spend limit), spread over the instances; their ids. */
const raiseApprovals = async (instances: ReadonlyArray<ServerProcess>, count: number): Promise<Array<number>> => {
  const ids: Array<number> = []
  let next = 0
  const worker = async () => {
    while (next < count) {
      const i = next++
      const res = await fetch(`${instances[i % instances.length].url}/plan`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          request_id: `bench-approval-${i}-${Date.now()}`,
          trigger: { channel: "web", thread_id: `t-${i}`, message: { text: "Buy the conference ticket" } },
          tags: ["spend:25000:USD:Conf_Inc", "pii:none", "legal:none"]
        })
      })
      const body = await res.json() as { escalation?: { approval_id?: number } }
      if (body.escalation?.approval_id === undefined) throw new Error(`POST /plan: ${res.status} ${JSON.stringify(body)}`)
      ids.push(body.escalation.approval_id)
    }
  }
  await Promise.all(Array.from({ length: config.k }, worker))
  return ids
}

/** Resolves `ids` with K concurrent `POST /approvals/:id/respond`, round-robin over the instances. */
const resolveApprovals = async (instances: ReadonlyArray<ServerProcess>, ids: ReadonlyArray<number>) => {
  let next = 0
  let failures = 0
  const started = performance.now()
  const worker = async () => {
    while (next < ids.length) {
      const i = next++
      const res = await fetch(`${instances[i % instances.length].url}/approvals/${ids[i]}/respond`, {
        method: "POST",
        headers,
        body: JSON.stringify({ decision: "approved", reason: "bench" })
      })
      const body = await res.json() as { approval?: { status?: string } }
      if (res.status !== 200 || body.approval?.status !== "approved") failures++
    }
  }
  await Promise.all(Array.from({ length: config.k }, worker))
  const seconds = (performance.now() - started) / 1000
  return { resolved: ids.length - failures, failures, per_second: round((ids.length - failures) / seconds, 1), seconds: round(seconds) }
}

/** One-step runs per second, K in flight, started round-robin over the instances. */
const oneStepRuns = async (instances: ReadonlyArray<ServerProcess>, target: string) => {
  const clients = await Promise.all(instances.map((i) => connectWorkflowClient(i.url, BENCH_ADMIN_TOKEN)))
  const step = [{ type: "Http", args: { method: "GET", url: target } }]
  let before: Array<number> = []
  let pgBefore: number | undefined
  let window: { gateways: Array<number>; postgres: number | undefined } = { gateways: [], postgres: undefined }
  // Per instance, over the whole case (warm-up included): runs started there, and those that did not succeed within
  // the settle timeout (30 s; e.g. stuck `queued` on an instance whose engine lost its shards).
  const started = instances.map(() => 0)
  const stuck = instances.map(() => 0)
  const loop = await closedLoop(config.k, config.warmup * 1000, config.duration * 1000, async (worker) => {
    const index = worker % clients.length
    const runId = await clients[index].start(`agent:bench-${worker}:main`, step)
    started[index]++
    const succeeded = (await clients[index].settled(runId, "events")) === "succeeded"
    if (!succeeded) stuck[index]++
    return succeeded
  }, {
    onWindowStart: () => {
      before = instances.map((i) => processCpuSeconds(i.pid) ?? Number.NaN)
      pgBefore = postgresCpuSeconds()
    },
    onWindowEnd: () => {
      const pgAfter = postgresCpuSeconds()
      window = {
        gateways: instances.map((i, index) => (processCpuSeconds(i.pid) ?? Number.NaN) - before[index]),
        postgres: pgBefore === undefined || pgAfter === undefined ? undefined : pgAfter - pgBefore
      }
    }
  })
  await Promise.all(clients.map((c) => c.close()))
  const n = Math.max(1, loop.completed)
  const gateways = window.gateways.map((s) => round((s * 1000) / n))
  const cpu: CpuPerUnit = {
    gateways_ms: gateways,
    gateways_total_ms: round(gateways.reduce((a, b) => a + b, 0)),
    postgres_ms: window.postgres === undefined ? null : round((window.postgres * 1000) / n)
  }
  return {
    completed: loop.completed,
    failed: loop.failed,
    per_second: round(loop.runsPerSecond, 1),
    p50_ms: round(loop.p50Ms),
    p99_ms: round(loop.p99Ms),
    cpu_per_run: cpu,
    started_per_instance: started,
    not_succeeded_per_instance: stuck,
    errors: loop.errors
  }
}

/** Every measurement on a cluster of `count` instances (`cluster: false`: one gateway without `SVC_CLUSTER`). */
const measure = async (url: string, count: number, target: string, clusterMode = true) => {
  log(`starting ${count} instance(s)${clusterMode ? "" : " without SVC_CLUSTER"}`)
  const cluster: BenchCluster = await startBenchCluster(url, count, { cluster: clusterMode })
  try {
    const { instances } = cluster
    const latency = count > 1 ? await eventLatency(instances[0], instances[count - 1]) : null
    if (latency !== null) log(`event latency A → C p50 ${latency.on_c.p50_ms} ms, p99 ${latency.on_c.p99_ms} ms`)
    const ids = await raiseApprovals(instances, config.approvals)
    const approvals = await withCpu(instances, () => resolveApprovals(instances, ids), (r) => r.resolved)
    log(`approvals ${approvals.result.per_second}/s`)
    const runs = await oneStepRuns(instances, target)
    log(`one-step runs ${runs.per_second}/s`)
    return { instances: count, cluster: clusterMode, latency, approvals: { ...approvals.result, cpu_per_approval: approvals.cpu }, runs }
  } finally {
    await cluster.close()
  }
}

const reachable = async (url: string): Promise<string | undefined> => {
  try {
    await dropSchema(url, await createSchema(url))
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

type Measured = Awaited<ReturnType<typeof measure>>

const cpuCell = (cpu: CpuPerUnit) =>
  `${cpu.gateways_ms.join(" + ")} = ${cpu.gateways_total_ms}${cpu.postgres_ms === null ? "" : `; PostgreSQL ${cpu.postgres_ms}`}`

const render = (plain: Measured, one: Measured, three: Measured) => {
  const latency = three.latency!
  const approvalsScale = round(three.approvals.per_second / one.approvals.per_second)
  const runsScale = round(three.runs.per_second / one.runs.per_second)
  const verdict = (ok: boolean) => (ok ? "met" : "**not met**")
  const errors = [plain, one, three].flatMap((m) => m.runs.errors)
  return [
    "# Several gateways on one PostgreSQL database (issue 27 §5)",
    "",
    `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}; ` +
    `gateway processes (\`dist/cli/main.mjs serve\`, \`SVC_CLUSTER=1\`) and PostgreSQL on this machine; ${config.k} requests ` +
    `in flight; runs: ${config.warmup} s warm-up, ${config.duration} s measured; ${config.approvals} approvals per case; ` +
    `${latency.samples} latency samples (one at a time).`,
    "",
    "| measure | 1 gateway, no cluster (reference) | 1 instance | 3 instances | 3 ÷ 1 | target |",
    "|---|---:|---:|---:|---:|---|",
    `| event latency, change on A → client of C, p50 / p99 / max ms | – | – | ${latency.on_c.p50_ms} / ${latency.on_c.p99_ms} / ${latency.on_c.max_ms} | – | p99 ≤ ${TARGET_P99_MS} ms: ${verdict(latency.on_c.p99_ms <= TARGET_P99_MS)} |`,
    `| same event, client of A (the instance that made the change), p50 / p99 ms | – | – | ${latency.on_a.p50_ms} / ${latency.on_a.p99_ms} | – | – |`,
    `| C after A for the same event (what crossing instances adds), p50 / p99 ms | – | – | ${latency.c_after_a.p50_ms} / ${latency.c_after_a.p99_ms} | – | – |`,
    `| approvals resolved per second | ${plain.approvals.per_second} | ${one.approvals.per_second} | ${three.approvals.per_second} | ${approvalsScale} | ≥ 1: ${verdict(approvalsScale >= 1)} |`,
    `| one-step runs per second | ${plain.runs.per_second} | ${one.runs.per_second} | ${three.runs.per_second} | ${runsScale} | ≥ 1: ${verdict(runsScale >= 1)} |`,
    `| one-step run p50 / p99 ms | ${plain.runs.p50_ms} / ${plain.runs.p99_ms} | ${one.runs.p50_ms} / ${one.runs.p99_ms} | ${three.runs.p50_ms} / ${three.runs.p99_ms} | – | – |`,
    "",
    "CPU per unit of work, ms (each gateway process, their sum; the local PostgreSQL server's processes):",
    "",
    "| work | 1 gateway, no cluster | 1 instance | 3 instances |",
    "|---|---|---|---|",
    `| one approval resolved | ${cpuCell(plain.approvals.cpu_per_approval)} | ${cpuCell(one.approvals.cpu_per_approval)} | ${cpuCell(three.approvals.cpu_per_approval)} |`,
    `| one one-step run | ${cpuCell(plain.runs.cpu_per_run)} | ${cpuCell(one.runs.cpu_per_run)} | ${cpuCell(three.runs.cpu_per_run)} |`,
    "",
    `Runs started per instance over each case (warm-up included) and, of them, not succeeded within 30 s: ` +
    [plain, one, three].map((m) => `${m.cluster ? `${m.instances} instance(s)` : "no cluster"} ` +
      m.runs.started_per_instance.map((n, i) => `${String.fromCharCode(65 + i)} ${n} (${m.runs.not_succeeded_per_instance[i]})`).join(", ")).join("; ") +
    ".",
    `Failures inside the measured windows (no cluster / 1 / 3): approvals ${[plain, one, three].map((m) => m.approvals.failures).join(" / ")}, ` +
    `runs ${[plain, one, three].map((m) => m.runs.failed).join(" / ")}` +
    `${errors.length > 0 ? ` (${errors.slice(0, 3).join("; ")})` : ""}.`,
    `Load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(" / ")}.`,
    ""
  ].join("\n")
}

const main = async () => {
  installCleanup()
  const url = benchPostgresUrl()
  const unreachable = url === undefined ? "no SVC_BENCH_DATABASE_URL or SVC_TEST_DATABASE_URL" : await reachable(url)
  if (url === undefined || unreachable !== undefined) {
    console.log(JSON.stringify({ bench: "cluster", skipped: `PostgreSQL unavailable: ${unreachable}` }))
    return
  }
  const body = JSON.stringify({ ok: true })
  const server = createServer((req, res) => {
    req.resume()
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`
  try {
    const plain = await measure(url, 1, target, false)
    const one = await measure(url, 1, target)
    const three = await measure(url, 3, target)
    const result = { bench: "cluster", config, plain, one, three }
    console.log(JSON.stringify(result))
    const report = render(plain, one, three)
    console.log(report)
    const defaults = Object.entries(DEFAULTS).every(([k, v]) => config[k as keyof typeof config] === v)
    if (defaults) {
      mkdirSync(resultsDir, { recursive: true })
      writeFileSync(join(resultsDir, "cluster-latest.md"), report)
      writeFileSync(join(resultsDir, "cluster-latest.json"), JSON.stringify(result, null, 2) + "\n")
    }
  } finally {
    server.close()
  }
}

void main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
