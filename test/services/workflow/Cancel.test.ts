/**
 * Cancels of running and paused runs (issue 20 point 12; docs/workflow-runs.md
 * "Cancel"), on a SQLite file and (with SVC_TEST_DATABASE_URL) PostgreSQL,
 * with the fake executor: an attempt in flight is waited for and records its
 * real outcome; a run whose every step succeeded before the cancel took
 * effect is `succeeded`; a cancel the engine applied alone (a crash right
 * after the interrupt) still ends the records and the run's approvals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../support/eventually.ts"
import { callsOf, release } from "./engine/support.ts"
import { makeWorkflowRuntime, workflowDatabases, workflowHelpers, type WorkflowRuntime } from "./support.ts"

for (const db of workflowDatabases) {
  describe(`cancel of running and paused runs (${db.name})`, () => {
    let runtime: WorkflowRuntime
    let h: ReturnType<typeof workflowHelpers>
    let admin: Awaited<ReturnType<ReturnType<typeof workflowHelpers>["watch"]>>

    beforeAll(async () => {
      runtime = makeWorkflowRuntime(db)
      h = workflowHelpers(runtime)
      admin = await h.watch("admin")
    })
    afterAll(async () => {
      await runtime?.dispose()
    })

    const settle = (run_id: string, status: string) =>
      eventually(async () => (await h.runStatus(run_id)) === status, `run ${run_id} ${status}`, 20_000)
    const pauseOf = (run_id: string) => admin.events("run.paused").filter((e) => e.payload.run_id === run_id)

    it("a cancel that lands while an attempt is in flight waits for it: the attempt records what happened, the rest is cancelled", async () => {
      const key = "agent:cancelr:main"
      const running = await h.start([{ type: "Llm", args: { hold: `cancel-running-${db.name}` } }, { type: "Llm" }], { key })
      const next = await h.start([{ type: "Llm" }], { key })
      await eventually(() => callsOf(running.run_id).length === 1, "step 0 running", 20_000)
      let answered = false
      const cancelling = h.use((wf) => wf.cancel(running.run_id, "stop")).finally(() => (answered = true))
      // The cancel does not mark the attempt in flight: it waits for its end.
      await eventually(async () => (await h.runStatus(running.run_id)) === "running" && !answered, "the cancel to wait", 20_000)
      release(`cancel-running-${db.name}`)
      expect(await cancelling).toEqual({ status: "ok", run_id: running.run_id, cancelled: true })
      const detail = await h.detail(running.run_id)
      expect(detail.run).toMatchObject({ status: "cancelled", paused_detail: "stop" })
      expect(detail.steps.map((s) => s.status)).toEqual(["succeeded", "cancelled"])
      expect(detail.steps[0]!.attempts.map((a) => [a.status, a.result])).toEqual([
        ["succeeded", { step: 0, attempt_id: `${running.run_id}:0:1` }]
      ])
      await settle(next.run_id, "succeeded")
      expect(await h.runStatus(running.run_id)).toBe("cancelled")
      expect(callsOf(running.run_id)).toEqual([0])
      // Terminal and not cancelled: false.
      expect(await h.use((wf) => wf.cancel(next.run_id))).toMatchObject({ cancelled: false })
    })

    it("a cancel that lands while the last step is in flight, which then succeeds, leaves the run succeeded", async () => {
      const running = await h.start([{ type: "Llm" }, { type: "Llm", args: { hold: `cancel-last-${db.name}` } }], { key: "agent:cancell:main" })
      await eventually(() => callsOf(running.run_id).length === 2, "step 1 running", 20_000)
      const cancelling = h.use((wf) => wf.cancel(running.run_id))
      release(`cancel-last-${db.name}`)
      expect(await cancelling).toEqual({ status: "ok", run_id: running.run_id, cancelled: false })
      const detail = await h.detail(running.run_id)
      expect(detail.run.status).toBe("succeeded")
      expect(detail.steps.map((s) => [s.status, s.attempts.map((a) => a.status)])).toEqual([
        ["succeeded", ["succeeded"]],
        ["succeeded", ["succeeded"]]
      ])
      expect(admin.events("run.cancelled").some((e) => e.payload.run_id === running.run_id)).toBe(false)
      await eventually(
        () => admin.events("run.completed").some((e) => e.payload.run_id === running.run_id),
        "run.completed",
        20_000
      )
    })

    it("a cancel the engine applies alone (a crash before the records were written) still ends the records", async () => {
      // Paused: the interrupt resets the execution and its finalizer records the cancel, approval included.
      const paused = await h.start([{ type: "Confirm" }, { type: "Llm" }], { key: "agent:engcancel1:main" })
      await eventually(() => pauseOf(paused.run_id).length === 1, "paused", 20_000)
      await h.engine((runs) => runs.cancel(paused.run_id))
      await settle(paused.run_id, "cancelled")
      // Its approval goes right after the records' commit.
      const approvalStatus = async () => (await h.approvals((a) => a.get(pauseOf(paused.run_id)[0]!.payload.approval_id))).status
      await eventually(async () => (await approvalStatus()) === "cancelled", "the approval to be cancelled", 20_000)
      expect((await h.detail(paused.run_id)).steps.map((s) => s.status)).toEqual(["cancelled", "cancelled"])
      // Running: the interrupt takes effect once the attempt in flight has ended; nothing runs after it.
      const running = await h.start([{ type: "Llm", args: { hold: `engine-cancel-${db.name}` } }, { type: "Llm" }], { key: "agent:engcancel2:main" })
      await eventually(() => callsOf(running.run_id).length === 1, "step 0 running", 20_000)
      await h.engine((runs) => runs.cancel(running.run_id))
      release(`engine-cancel-${db.name}`)
      await settle(running.run_id, "cancelled")
      const detail = await h.detail(running.run_id)
      expect(detail.steps.map((s) => [s.status, s.attempts.map((a) => a.status)])).toEqual([
        ["succeeded", ["succeeded"]],
        ["cancelled", []]
      ])
      expect(callsOf(running.run_id)).toEqual([0])
    })
  })
}
