/**
 * The few figures the status page charts, from a Prometheus text exposition
 * (`GET /metrics`, 0.0.4): samples are `name{labels} value` lines; HELP/TYPE
 * comments are skipped. Rates and p99 come from the difference of two scrapes.
 */

/** One sample: metric name, labels, value. */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Parses the exposition's samples (malformed lines are skipped). */
export const parseSamples = (text: string): Array<Sample> => {
  const out: Array<Sample> = []
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue
    const m = LINE.exec(line)
    if (!m) continue
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c))
    out.push({ name: m[1]!, labels, value: Number(m[3]) })
  }
  return out
}

/** Sum of the samples named `name` (optionally only those whose labels match `where`). */
export const sum = (samples: ReadonlyArray<Sample>, name: string, where: Record<string, string> = {}): number =>
  samples
    .filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0)

/** Cumulative bucket counts of a histogram summed over its series, by upper bound (`+Inf` last). */
export const buckets = (samples: ReadonlyArray<Sample>, histogram: string): Map<number, number> => {
  const out = new Map<number, number>()
  for (const s of samples) {
    if (s.name !== `${histogram}_bucket`) continue
    const le = s.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(s.labels.le)
    out.set(le, (out.get(le) ?? 0) + s.value)
  }
  return new Map([...out.entries()].sort((a, b) => a[0] - b[0]))
}

/**
 * The `q` quantile (0..1) of the observations between two scrapes of a histogram: the upper bound of the first
 * bucket holding it (Prometheus' `histogram_quantile` without interpolation). `undefined` with no observation.
 */
export const quantileBetween = (before: Map<number, number>, after: Map<number, number>, q: number): number | undefined => {
  const deltas = [...after.entries()].map(([le, count]) => [le, count - (before.get(le) ?? 0)] as const)
  const total = deltas.at(-1)?.[1] ?? 0
  if (total <= 0) return undefined
  const rank = q * total
  const hit = deltas.find(([, count]) => count >= rank)
  return hit?.[0]
}
