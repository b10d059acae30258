/** The state machines of reference §6.5, enumerated edge by edge. */
import { describe, expect, it } from "vitest"
import {
  canTransition,
  type MachineKind,
  STATUSES,
  terminalStatuses,
  TRANSITIONS
} from "../../../../services/workflow/runs/states.ts"

const EXPECTED: Record<MachineKind, Array<string>> = {
  job: ["queued>running", "queued>cancelled", "running>completed", "running>failed", "running>cancelled"],
  run: [
    "queued>running",
    "queued>cancelled",
    "running>paused",
    "running>succeeded",
    "running>failed",
    "running>cancelled",
    "paused>queued",
    "paused>running",
    "paused>failed",
    "paused>cancelled"
  ],
  step: [
    "queued>running",
    "queued>paused",
    "queued>succeeded",
    "queued>failed",
    "queued>skipped",
    "queued>cancelled",
    "running>succeeded",
    "running>failed",
    "running>paused",
    "running>queued",
    "running>cancelled",
    "paused>queued",
    "paused>failed",
    "paused>cancelled"
  ],
  attempt: ["running>succeeded", "running>failed", "running>timed_out", "running>cancelled"]
}

describe("workflow state machines", () => {
  for (const kind of ["job", "run", "step", "attempt"] as const) {
    it(`${kind}: exactly the documented edges`, () => {
      const allowed: Array<string> = []
      for (const from of STATUSES[kind]) {
        for (const to of STATUSES[kind]) if (canTransition(kind, from, to)) allowed.push(`${from}>${to}`)
      }
      expect(allowed.sort()).toEqual([...EXPECTED[kind]].sort())
      // Every table row is a status of its machine, and every status has a row.
      expect(Object.keys(TRANSITIONS[kind]).sort()).toEqual([...STATUSES[kind]].sort())
    })
  }

  it("has the terminal statuses of the reference", () => {
    expect(terminalStatuses("job")).toEqual(["completed", "failed", "cancelled"])
    expect(terminalStatuses("run")).toEqual(["succeeded", "failed", "cancelled"])
    expect(terminalStatuses("step")).toEqual(["succeeded", "failed", "cancelled", "skipped"])
    expect(terminalStatuses("attempt")).toEqual(["succeeded", "failed", "timed_out", "cancelled"])
  })

  it("rejects unknown statuses and self-loops", () => {
    expect(canTransition("run", "queued", "queued")).toBe(false)
    expect(canTransition("run", "bogus", "running")).toBe(false)
    expect(canTransition("run", "toString", "running")).toBe(false)
    expect(canTransition("attempt", "running", "paused")).toBe(false)
  })
})
