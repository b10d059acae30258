/**
 * HTTP side of the benchmark: a correctness check of the servers, then
 * autocannon load runs with per-request latencies (sub-millisecond) and the
 * CPU the server process used during each run.
 *
 * @module
 */
import autocannon from "autocannon"
import { machineBusySeconds, processCpuSeconds, type ServerProcess } from "./processes.ts"
import { BENCH_ADMIN_TOKEN, EQUIVALENCE_CASES, SAMPLE_BODY } from "./sample.ts"

const PATH = "/policy/check"

interface Reply {
  readonly status: number
  readonly body: string
}

const post = async (base: string, body: string, token: string | undefined): Promise<Reply> => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  const response = await fetch(base + PATH, { method: "POST", headers, body })
  return { status: response.status, body: await response.text() }
}

/**
 * Checks, before anything is measured, that the gateway and every peer
 * (the plain baseline, the Hono server):
 * - answer the sample request 200 with byte-identical decision bodies;
 * - answer 401 without a token and with a wrong token, the peers with
 *   byte-identical 401 bodies (the gateway's message is its own);
 * - agree with the gateway (200 with identical bodies, or both 400; 400
 *   messages may differ) on every equivalence case and on malformed and
 *   empty JSON.
 * Returns the sample decision body; throws on the first disagreement.
 */
export const verifyTargets = async (gateway: ServerProcess, peers: ReadonlyArray<ServerProcess>): Promise<string> => {
  const targets = [gateway, ...peers]
  const [g, ...others] = await Promise.all(targets.map((t) => post(t.url, SAMPLE_BODY, BENCH_ADMIN_TOKEN)))
  for (const [i, reply] of others.entries()) {
    const peer = peers[i]
    if (g.status !== 200 || reply.status !== 200) {
      throw new Error(`sample request: gateway ${g.status} ${g.body} / ${peer.name} ${reply.status} ${reply.body} (want 200 / 200)`)
    }
    if (g.body !== reply.body) throw new Error(`sample decision differs:\n gateway: ${g.body}\n ${peer.name}: ${reply.body}`)
  }

  for (const token of [undefined, "f".repeat(64)]) {
    const unauthorized: Array<Reply> = []
    for (const target of targets) {
      const reply = await post(target.url, SAMPLE_BODY, token)
      if (reply.status !== 401) {
        throw new Error(`${target.name} answered ${reply.status} (want 401) ${token === undefined ? "without a token" : "with a wrong token"}`)
      }
      if (target !== gateway) unauthorized.push(reply)
    }
    const [first, ...rest] = unauthorized
    for (const [i, reply] of rest.entries()) {
      if (reply.body !== first.body) {
        throw new Error(`401 bodies differ:\n ${peers[0].name}: ${first.body}\n ${peers[i + 1].name}: ${reply.body}`)
      }
    }
  }

  const bodies = [...EQUIVALENCE_CASES.map((c) => JSON.stringify(c)), "{\"spend\":", ""]
  for (const body of bodies) {
    const [gr, ...replies] = await Promise.all(targets.map((t) => post(t.url, body, BENCH_ADMIN_TOKEN)))
    for (const [i, pr] of replies.entries()) {
      const agree = gr.status === pr.status &&
        (gr.status === 200 ? gr.body === pr.body : gr.status === 400)
      if (!agree) {
        throw new Error(`servers disagree on body ${body}:\n gateway: ${gr.status} ${gr.body}\n ${peers[i].name}: ${pr.status} ${pr.body}`)
      }
    }
  }
  return g.body
}

/** One autocannon run against one server. */
export interface LoadRun {
  readonly target: string
  readonly seconds: number
  readonly requests: number
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  /** CPU used by the server process during the run, as % of one core (undefined without /proc). */
  readonly serverCpuPct: number | undefined
  /** CPU time (user + system) the server process used during the run, in seconds (undefined without /proc). */
  readonly serverCpuSeconds: number | undefined
  /** {@link serverCpuSeconds} per 2xx response, in microseconds. */
  readonly serverCpuUsPerRequest: number | undefined
  /** CPU used by this (load-generating) process during the run, as % of one core. */
  readonly loadGenCpuPct: number
  /**
   * CPU used by every OTHER process on the machine during the run, as % of one
   * core (machine busy time minus server and load generator). Well above ~10%
   * means something else competed for the cores and the run is noisy.
   */
  readonly otherCpuPct: number | undefined
}

export interface LoadOptions {
  readonly durationSeconds: number
  readonly connections: number
}

/** Percentile (nearest rank) of an ascending-sorted array. */
const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

/** Drives `target` with autocannon (POST sample body, keep-alive, no pipelining). */
export const runLoad = async (target: ServerProcess, options: LoadOptions): Promise<LoadRun> => {
  let latencies = new Float64Array(1 << 16)
  let count = 0
  const cpuBefore = processCpuSeconds(target.pid)
  const machineBefore = machineBusySeconds()
  const ownBefore = process.cpuUsage()
  const started = performance.now()

  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: target.url + PATH,
      method: "POST",
      headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: SAMPLE_BODY,
      connections: options.connections,
      pipelining: 1,
      duration: options.durationSeconds,
      timeout: 10
    }, (error, result) => (error ? reject(error) : resolve(result)))
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode < 200 || statusCode >= 300) return
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2)
        grown.set(latencies)
        latencies = grown
      }
      latencies[count++] = responseTime
    })
  })

  const wall = (performance.now() - started) / 1000
  const own = process.cpuUsage(ownBefore)
  const cpuAfter = processCpuSeconds(target.pid)
  const machineAfter = machineBusySeconds()
  const serverCpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore
  const ownCpu = (own.user + own.system) / 1e6
  const sorted = latencies.subarray(0, count).sort()
  const seconds = result.duration > 0 ? result.duration : wall
  return {
    target: target.name,
    seconds,
    requests: result["2xx"],
    rps: result["2xx"] / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    serverCpuPct: serverCpu === undefined ? undefined : (serverCpu / wall) * 100,
    serverCpuSeconds: serverCpu,
    serverCpuUsPerRequest: serverCpu === undefined || result["2xx"] === 0 ? undefined : (serverCpu / result["2xx"]) * 1e6,
    loadGenCpuPct: (ownCpu / wall) * 100,
    otherCpuPct: serverCpu === undefined || machineBefore === undefined || machineAfter === undefined
      ? undefined
      : (Math.max(0, machineAfter - machineBefore - serverCpu - ownCpu) / wall) * 100
  }
}

/** Several measured runs of one target, summarised. */
export interface LoadSummary {
  readonly target: string
  readonly runs: ReadonlyArray<LoadRun>
  /** Total 2xx responses / total measured seconds. */
  readonly rps: number
  /** Median over runs of each run's p50 / p99. */
  readonly p50Ms: number
  readonly p99Ms: number
  readonly errors: number
  readonly non2xx: number
  readonly serverCpuPct: number | undefined
  /** Server CPU time over all runs / 2xx responses over all runs, in microseconds. */
  readonly serverCpuUsPerRequest: number | undefined
  readonly loadGenCpuPct: number
  /** Highest {@link LoadRun.otherCpuPct} over the runs. */
  readonly maxOtherCpuPct: number | undefined
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const mean = (values: ReadonlyArray<number>): number => values.reduce((a, b) => a + b, 0) / values.length

export const summarise = (target: string, runs: ReadonlyArray<LoadRun>): LoadSummary => {
  const seconds = runs.reduce((a, r) => a + r.seconds, 0)
  const cpu = runs.map((r) => r.serverCpuPct)
  const cpuSeconds = runs.map((r) => r.serverCpuSeconds)
  const requests = runs.reduce((a, r) => a + r.requests, 0)
  const other = runs.map((r) => r.otherCpuPct)
  return {
    target,
    runs,
    rps: requests / seconds,
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    errors: runs.reduce((a, r) => a + r.errors + r.timeouts, 0),
    non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
    serverCpuPct: cpu.every((c): c is number => c !== undefined) ? mean(cpu) : undefined,
    serverCpuUsPerRequest: cpuSeconds.every((c): c is number => c !== undefined) && requests > 0
      ? (cpuSeconds.reduce((a, c) => a + c, 0) / requests) * 1e6
      : undefined,
    loadGenCpuPct: mean(runs.map((r) => r.loadGenCpuPct)),
    maxOtherCpuPct: other.every((c): c is number => c !== undefined) ? Math.max(...other) : undefined
  }
}
