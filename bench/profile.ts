/**
 * Summary of a V8 `.cpuprofile` (as written by `node --cpu-prof`): self time
 * per function and per origin (effect, node internals, project code, GC, …).
 *
 * @module
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"

interface CpuProfileNode {
  readonly id: number
  readonly callFrame: {
    readonly functionName: string
    readonly url: string
    readonly lineNumber: number
  }
}

interface CpuProfile {
  readonly nodes: ReadonlyArray<CpuProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

export interface FrameTime {
  readonly label: string
  readonly selfMs: number
  readonly share: number
}

export interface ProfileSummary {
  readonly totalMs: number
  readonly idleMs: number
  readonly frames: ReadonlyArray<FrameTime>
  readonly origins: ReadonlyArray<FrameTime>
}

/** A profile frame's URL without the path up to node_modules/ or dist/. */
export const shortUrl = (url: string): string => {
  const nm = url.lastIndexOf("node_modules/")
  if (nm !== -1) return url.slice(nm + "node_modules/".length)
  const dist = url.lastIndexOf("/dist/")
  if (dist !== -1) return url.slice(dist + 1)
  return url.replace(/^file:\/\//, "")
}

const originOf = (node: CpuProfileNode): string => {
  const { functionName, url } = node.callFrame
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)"
  if (url.startsWith("node:")) return "node internals"
  const nm = url.lastIndexOf("node_modules/")
  if (nm !== -1) {
    const rest = url.slice(nm + "node_modules/".length).split("/")
    return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]
  }
  return "project code"
}

/** Self time by function (top `top`) and by origin, excluding `(idle)` from the shares. */
export const summariseProfile = (file: string, top = 15): ProfileSummary => {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  }
  const frames = new Map<string, number>()
  const origins = new Map<string, number>()
  let idleUs = 0
  let totalUs = 0
  for (const [id, us] of self) {
    const node = byId.get(id)
    if (node === undefined) continue
    totalUs += us
    if (node.callFrame.functionName === "(idle)") {
      idleUs += us
      continue
    }
    const { functionName, url, lineNumber } = node.callFrame
    const label = url === "" ? functionName || "(anonymous)" : `${functionName || "(anonymous)"} ${shortUrl(url)}:${lineNumber + 1}`
    frames.set(label, (frames.get(label) ?? 0) + us)
    const origin = originOf(node)
    origins.set(origin, (origins.get(origin) ?? 0) + us)
  }
  const busyUs = totalUs - idleUs
  const rank = (map: Map<string, number>, limit: number): Array<FrameTime> =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([label, us]) => ({
      label,
      selfMs: us / 1000,
      share: busyUs > 0 ? us / busyUs : 0
    }))
  return { totalMs: totalUs / 1000, idleMs: idleUs / 1000, frames: rank(frames, top), origins: rank(origins, 12) }
}

/**
 * Markdown tables of a profile summary. With `requests` (2xx responses the
 * process served while profiled), each row also shows self time per request.
 */
export const renderProfile = (title: string, summary: ProfileSummary, requests?: number): string => {
  const perRequest = requests !== undefined && requests > 0
  const row = (f: FrameTime) =>
    `| ${f.label.replace(/\|/g, "\\|")} | ${f.selfMs.toFixed(0)} | ${(f.share * 100).toFixed(1)}% |` +
    (perRequest ? ` ${((f.selfMs * 1000) / requests).toFixed(2)} |` : "")
  const head = (first: string) =>
    perRequest ? [`| ${first} | self ms | share | µs/request |`, "|---|---:|---:|---:|"] : [`| ${first} | self ms | share |`, "|---|---:|---:|"]
  const busyMs = summary.totalMs - summary.idleMs
  return [
    `### ${title}`,
    "",
    `Sampled ${(summary.totalMs / 1000).toFixed(1)} s, idle ${(summary.idleMs / 1000).toFixed(1)} s; shares are of non-idle time` +
    (perRequest ? `; ${requests.toLocaleString("en-US")} requests served, ${((busyMs * 1000) / requests).toFixed(1)} µs busy CPU per request.` : "."),
    "",
    ...head("origin"),
    ...summary.origins.map(row),
    "",
    ...head("top self-time frames"),
    ...summary.frames.map(row),
    ""
  ].join("\n")
}

/** The newest `.cpuprofile` in `dir` (modified at or after `since`, ms since the epoch), if any. */
export const newestProfile = (dir: string, since = 0): string | undefined => {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(".cpuprofile"))
      .map((f) => join(dir, f))
      .filter((f) => statSync(f).mtimeMs >= since)
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]
  } catch {
    return undefined
  }
}
