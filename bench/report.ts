/**
 * The markdown report printed at the end of a run and written to
 * `bench/results/latest.md`.
 *
 * @module
 */
import type { InProcessResult } from "./inprocess.ts"
import type { LoadSummary } from "./http-bench.ts"

/** Gateway throughput must be at least this fraction of the baseline's. */
export const TARGET_RATIO = 0.85

export interface ReportInput {
  readonly date: Date
  readonly node: string
  readonly cpu: string
  readonly cores: number
  readonly settings: {
    readonly warmupSeconds: number
    readonly durationSeconds: number
    readonly rounds: number
    readonly connections: number
    readonly inProcessSeconds: number
  }
  readonly gateway: LoadSummary
  /** The plain node:http baseline (bench/baseline-server.ts). */
  readonly baseline: LoadSummary
  /** The Hono + @hono/node-server + zod peer (bench/hono-server.ts). */
  readonly hono: LoadSummary
  readonly inProcess: ReadonlyArray<InProcessResult>
  /** Extra lines appended under "Notes". */
  readonly notes?: ReadonlyArray<string>
}

const int = (n: number): string => Math.round(n).toLocaleString("en-US")
const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : "n/a")
const pct = (n: number | undefined): string => (n === undefined ? "n/a" : `${Math.round(n)}%`)
const us = (n: number | undefined): string => (n === undefined ? "n/a" : n.toFixed(1))
const times = (n: number | undefined): string => (n === undefined || !Number.isFinite(n) ? "n/a" : `${n.toFixed(2)}x`)

const httpRow = (s: LoadSummary): string =>
  `| ${s.target} | ${int(s.rps)} | ${ms(s.p50Ms)} | ${ms(s.p99Ms)} | ${s.errors} | ${s.non2xx} | ${pct(s.serverCpuPct)} | ${us(s.serverCpuUsPerRequest)} | ${pct(s.loadGenCpuPct)} | ${pct(s.maxOtherCpuPct)} | ${s.runs.map((r) => int(r.rps)).join(" / ")} |`

/** Gateway throughput / plain baseline throughput (the figure {@link TARGET_RATIO} applies to). */
export const ratioOf = (input: Pick<ReportInput, "gateway" | "baseline">): number => input.gateway.rps / input.baseline.rps

/** Throughput of `target` relative to the plain baseline. */
export const throughputRatio = (target: LoadSummary, baseline: LoadSummary): number => target.rps / baseline.rps

/** Server CPU per request of `target` relative to the plain baseline (undefined without /proc). */
export const cpuPerRequestRatio = (target: LoadSummary, baseline: LoadSummary): number | undefined =>
  target.serverCpuUsPerRequest === undefined || baseline.serverCpuUsPerRequest === undefined
    ? undefined
    : target.serverCpuUsPerRequest / baseline.serverCpuUsPerRequest

export const renderReport = (input: ReportInput): string => {
  const ratio = ratioOf(input)
  const s = input.settings
  const lines = [
    "# Benchmark: POST /policy/check",
    "",
    `- Date: ${input.date.toISOString()}`,
    `- Node: ${input.node}`,
    `- CPU: ${input.cpu} (${input.cores} cores)`,
    `- Load: autocannon in the bench process, ${s.connections} connections, keep-alive, no pipelining; ` +
    `warm-up ${s.warmupSeconds} s per target, then ${s.rounds} rounds of ${s.durationSeconds} s per target, interleaved (order rotated each round)`,
    "",
    "## HTTP",
    "",
    "| target | req/s | p50 ms | p99 ms | errors | non-2xx | server CPU | server CPU µs/req | load-gen CPU | other CPU (max) | req/s per round |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    httpRow(input.gateway),
    httpRow(input.baseline),
    httpRow(input.hono),
    "",
    `**gateway / baseline throughput: ${ratio.toFixed(2)}x** (target >= ${TARGET_RATIO.toFixed(2)}x: ${ratio >= TARGET_RATIO ? "met" : "NOT met"})`,
    "",
    "| vs plain baseline | throughput | server CPU per request |",
    "|---|---:|---:|",
    ...[input.gateway, input.hono].map((t) =>
      `| ${t.target} / baseline | ${times(throughputRatio(t, input.baseline))} | ${times(cpuPerRequestRatio(t, input.baseline))} |`
    ),
    "",
    "## In-process (one core, timed loop)",
    "",
    "| case | ops/s | ns/op |",
    "|---|---:|---:|",
    ...input.inProcess.map((r) => `| ${r.name} | ${int(r.opsPerSecond)} | ${int(r.nsPerOp)} |`),
    "",
    "## Notes",
    "",
    "- req/s counts 2xx responses over the measured rounds; p50/p99 are the median over rounds of each round's " +
    "percentiles, from per-request latencies (sub-ms precision).",
    "- CPU columns are % of one core during the measured rounds (server: its child process; load-gen: the bench " +
    "process running autocannon; other: every other process on the machine, highest round). All share the same " +
    "cores: a server near 100% is CPU-bound, and a high \"other\" means the run was disturbed.",
    "- server CPU µs/req = the server process's CPU time (user + system, /proc) during the measured rounds ÷ the 2xx " +
    "responses it sent in them; it depends less on how the two cores were shared than req/s does.",
    "- baseline = bench/baseline-server.ts: plain node:http, same token check, hand-written validation, same evaluatePolicy.",
    "- hono = bench/hono-server.ts: Hono 4 + @hono/node-server 2 + zod 4 (the original product's stack), same token " +
    "check (middleware), 1 MiB limit checked by hand (content-length, then the text's size), c.req.text() + JSON.parse, zod safeParse of an equivalent schema, same evaluatePolicy, c.json.",
    ...(input.notes ?? []).map((n) => `- ${n}`),
    ""
  ]
  return lines.join("\n")
}
