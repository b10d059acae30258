/**
 * Before/after of the cold start (issue 22 §4): `node dist/bench/startup-ab.js
 * <dist-before> <dist-after> [rounds]` starts each build's gateway
 * (`<dist>/cli/main.mjs serve`) alternately, the order reversed every other
 * round, on a fresh `$SVC_HOME` each time and on one existing home per build
 * (created by an uncounted first start), and prints the medians and the median
 * of the per-round ratios (after ÷ before), which stay meaningful on a busy
 * machine where the absolute times do not. Same measure as bench/startup.ts.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { coldStart, type StartupTarget } from "./startup.ts"
import { gatewayEnv } from "./sample.ts"

const [before, after, roundsArg] = process.argv.slice(2)
if (before === undefined || after === undefined) throw new Error("usage: startup-ab.js <dist-before> <dist-after> [rounds]")
const rounds = Number(roundsArg ?? 7)
const target = (dist: string): StartupTarget => ({ name: dist, script: join(dist, "cli/main.mjs"), args: ["serve"], env: gatewayEnv })
const targets = [target(before), target(after)]
const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const root = mkdtempSync(join(tmpdir(), "svc-startup-ab-"))
try {
  const existing = targets.map(() => mkdtempSync(join(root, "existing-")))
  for (const [i, t] of targets.entries()) await coldStart(t, existing[i])
  const ms = { fresh: [[], []] as Array<Array<number>>, existing: [[], []] as Array<Array<number>> }
  for (let round = 0; round < rounds; round++) {
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
      ms.fresh[i].push((await coldStart(targets[i], mkdtempSync(join(root, "fresh-")))).ms)
      ms.existing[i].push((await coldStart(targets[i], existing[i])).ms)
    }
  }
  for (const kind of ["fresh", "existing"] as const) {
    const [b, a] = ms[kind]
    const ratio = median(a.map((x, i) => x / b[i]))
    console.log(`${kind} home: before ${median(b).toFixed(0)} ms, after ${median(a).toFixed(0)} ms (medians of ${rounds}); after/before per round: median ${ratio.toFixed(3)}`)
  }
} finally {
  rmSync(root, { recursive: true, force: true })
}
