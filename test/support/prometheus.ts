/**
 * Reading a Prometheus text exposition in tests: samples with their labels,
 * and the HELP and TYPE lines by metric name.
 */

/** One sample line: `name{label="value",…} value`. */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

/** The parsed exposition. */
export interface Exposition {
  readonly samples: ReadonlyArray<Sample>
  readonly help: ReadonlyMap<string, string>
  readonly type: ReadonlyMap<string, string>
  /** Samples named `name` whose labels include every entry of `labels`. */
  readonly find: (name: string, labels?: Record<string, string>) => ReadonlyArray<Sample>
  /** The value of the one sample named `name` with exactly `labels` (0 when absent). */
  readonly value: (name: string, labels?: Record<string, string>) => number
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Parses `text`; throws on a line that is neither a comment nor a sample. */
export const parseExposition = (text: string): Exposition => {
  const samples: Array<Sample> = []
  const help = new Map<string, string>()
  const type = new Map<string, string>()
  for (const line of text.split("\n")) {
    if (line === "") continue
    if (line.startsWith("# HELP ")) {
      const [name, ...rest] = line.slice(7).split(" ")
      help.set(name, rest.join(" "))
      continue
    }
    if (line.startsWith("# TYPE ")) {
      const [name, kind] = line.slice(7).split(" ")
      type.set(name, kind)
      continue
    }
    const match = SAMPLE.exec(line)
    if (match === null) throw new Error(`not a Prometheus sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, key, value] of (match[2] ?? "").matchAll(LABEL)) labels[key] = value.replace(/\\(.)/g, "$1")
    samples.push({ name: match[1], labels, value: Number(match[3]) })
  }
  const matches = (sample: Sample, labels: Record<string, string>) => Object.entries(labels).every(([k, v]) => sample.labels[k] === v)
  const find = (name: string, labels: Record<string, string> = {}) => samples.filter((s) => s.name === name && matches(s, labels))
  const value = (name: string, labels: Record<string, string> = {}) =>
    samples.find((s) => s.name === name && matches(s, labels) && Object.keys(s.labels).length === Object.keys(labels).length)?.value ?? 0
  return { samples, help, type, find, value }
}
