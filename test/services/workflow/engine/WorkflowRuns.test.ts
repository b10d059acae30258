import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { RunEngineStatus } from "../../../../services/workflow/engine/WorkflowRuns.ts"
import { eventually } from "../../../support/eventually.ts"
import { backends, callsOf, type DurableTestDatabase, makeRuntime, step, WorkflowRuns } from "./support.ts"

const newRunId = () => `run_${randomUUID()}`

for (const backend of backends) {
  describe(`WorkflowRuns on ${backend.name}`, () => {
    let db: DurableTestDatabase
    let runtime: ReturnType<typeof makeRuntime>

    beforeAll(async () => {
      db = await backend.open()
      runtime = makeRuntime(db)
    })
    afterAll(async () => {
      await runtime?.dispose()
      await db?.drop()
    })

    const run = <A>(f: (runs: WorkflowRuns["Service"]) => Effect.Effect<A>) =>
      runtime.runPromise(Effect.gen(function*() { return yield* f(yield* WorkflowRuns) }))
    const settled = (run_id: string) => run((runs) => runs.awaitSettled(run_id))

    it("runs three steps to completion, each exactly once", async () => {
      const run_id = newRunId()
      await run((runs) => runs.start({ run_id, steps: [step("Http"), step("CLI"), step("Llm")] }))
      const status = await settled(run_id)
      expect(status.status).toBe("succeeded")
      expect(callsOf(run_id)).toEqual([0, 1, 2])
      if (status.status === "succeeded") {
        expect(status.result.steps.map((s) => s.step_index)).toEqual([0, 1, 2])
        expect(status.result.steps[1]!.result).toEqual({ step: 1, attempt_id: `${run_id}:1:1` })
      }
      // Starting the same run id again joins the finished execution: nothing runs twice.
      await run((runs) => runs.start({ run_id, steps: [step("Http"), step("CLI"), step("Llm")] }))
      expect((await settled(run_id)).status).toBe("succeeded")
      expect(callsOf(run_id)).toEqual([0, 1, 2])
    })

    it("fails the run when a step fails, without running later steps", async () => {
      const run_id = newRunId()
      await run((runs) => runs.start({ run_id, steps: [step("Http"), step("Http", { fail: "http_status" }), step("Llm")] }))
      const status = await settled(run_id)
      expect(status).toMatchObject({ status: "failed", error: { _tag: "StepFailed", step_index: 1, code: "http_status" } })
      expect(callsOf(run_id)).toEqual([0, 1])
    })

    it("suspends at a Confirm step and continues when approved", async () => {
      const run_id = newRunId()
      await run((runs) => runs.start({ run_id, steps: [step("Http"), step("Confirm"), step("Llm")] }))
      expect((await settled(run_id)).status).toBe("suspended")
      expect(callsOf(run_id)).toEqual([0])
      await run((runs) => runs.resume(run_id, "confirm/1", { approved: true, resolved_by: "approval:test" }))
      const status = await awaitStatus(run, run_id, "succeeded")
      expect(callsOf(run_id)).toEqual([0, 2])
      if (status.status === "succeeded") {
        expect(status.result.steps[1]).toEqual({ step_index: 1, result: { approved: true, resolved_by: "approval:test" } })
      }
    })

    it("ends the run when a Confirm step is denied", async () => {
      const run_id = newRunId()
      await run((runs) => runs.start({ run_id, steps: [step("Http"), step("Confirm"), step("Llm")] }))
      expect((await settled(run_id)).status).toBe("suspended")
      await run((runs) => runs.resume(run_id, "confirm/1", { approved: false }))
      const status = await awaitStatus(run, run_id, "failed")
      expect(status).toMatchObject({ status: "failed", error: { _tag: "RunDenied", step_index: 1 } })
      expect(callsOf(run_id)).toEqual([0])
    })

    it("cancels a suspended run", async () => {
      const run_id = newRunId()
      await run((runs) => runs.start({ run_id, steps: [step("Confirm"), step("Llm")] }))
      expect((await settled(run_id)).status).toBe("suspended")
      await run((runs) => runs.cancel(run_id))
      await awaitStatus(run, run_id, "interrupted")
      expect(callsOf(run_id)).toEqual([])
    })

    it("reports unknown for a run id never started", async () => {
      expect((await run((runs) => runs.status(newRunId()))).status).toBe("unknown")
    })
  })

  describe(`durability on ${backend.name}`, () => {
    it("resumes a suspended run in a new runtime on the same database without re-running finished steps", async () => {
      const db = await backend.open()
      try {
        const run_id = newRunId()
        const first = makeRuntime(db)
        await first.runPromise(Effect.gen(function*() {
          const runs = yield* WorkflowRuns
          yield* runs.start({ run_id, steps: [step("Http"), step("CLI"), step("Confirm"), step("Llm")] })
          expect((yield* runs.awaitSettled(run_id)).status).toBe("suspended")
        }))
        expect(callsOf(run_id)).toEqual([0, 1])
        await first.dispose()

        const second = makeRuntime(db)
        try {
          const run = <A>(f: (runs: WorkflowRuns["Service"]) => Effect.Effect<A>) =>
            second.runPromise(Effect.gen(function*() { return yield* f(yield* WorkflowRuns) }))
          expect((await run((runs) => runs.status(run_id))).status).toBe("suspended")
          await run((runs) => runs.resume(run_id, "confirm/2", { approved: true }))
          await awaitStatus(run, run_id, "succeeded")
          expect(callsOf(run_id)).toEqual([0, 1, 3])
        } finally {
          await second.dispose()
        }
      } finally {
        await db.drop()
      }
    })
  })
}

/** Polls the engine until the run reaches `wanted` (generous deadline: the engine decides when). */
const awaitStatus = async (
  run: <A>(f: (runs: WorkflowRuns["Service"]) => Effect.Effect<A>) => Promise<A>,
  run_id: string,
  wanted: RunEngineStatus["status"],
  timeoutMs = 20_000
): Promise<RunEngineStatus> => {
  let last: RunEngineStatus | undefined
  await eventually(async () => {
    last = await run((runs) => runs.status(run_id))
    return last.status === wanted
  }, `run ${run_id} to be ${wanted}`, timeoutMs)
  return last!
}
