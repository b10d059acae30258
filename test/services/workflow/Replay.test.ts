/**
 * What the engine does with an attempt whose record exists when it runs the
 * attempt's activity (issue 20 points 1 and 11): the state a crash leaves
 * when it lands after the record was written and before the engine stored
 * the activity's result. Here the record is written by hand while the run
 * waits in its lane, then the lane is freed and the engine runs the attempt
 * (fake executor; a SQLite file, and PostgreSQL with SVC_TEST_DATABASE_URL):
 *
 * - an attempt recorded `succeeded` is replayed from its record: the step is
 *   not executed again;
 * - an attempt recorded `failed` keeps its recorded error (a retry pause
 *   names it) and is not executed again;
 * - an attempt recorded `running` is `interrupted` (never run again under its
 *   number) and, for an idempotent step, does not use up `max_attempts`.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { RunsRepo } from "../../../services/workflow/runs/RunsRepo.ts"
import type { WorkflowStep } from "../../../services/workflow/runs/schema.ts"
import { eventually } from "../../support/eventually.ts"
import { callsOf } from "./engine/support.ts"
import { makeWorkflowRuntime, workflowDatabases, workflowHelpers, type WorkflowRuntime } from "./support.ts"

for (const db of workflowDatabases) {
  describe(`an attempt the records already hold when the engine runs it (${db.name})`, () => {
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

    const at = () => new Date().toISOString()
    const settle = (run_id: string, status: string) =>
      eventually(async () => (await h.runStatus(run_id)) === status, `run ${run_id} ${status}`, 20_000)

    /**
     * Records a run of `step` queued behind a paused run of the same lane,
     * lets `write` record its first attempt, then frees the lane.
     */
    const runAfter = async (
      name: string,
      step: Partial<WorkflowStep> & Pick<WorkflowStep, "type">,
      write: (repo: RunsRepo["Service"], ids: { run_id: string; step_id: string; attempt_id: string }) => Effect.Effect<unknown, unknown>
    ) => {
      const key = `agent:${name}:main`
      const holder = await h.start([{ type: "Confirm" }], { key })
      await eventually(async () => (await h.runStatus(holder.run_id)) === "paused", "the lane's holder to pause", 20_000)
      const started = await h.start([step], { key })
      expect(await h.runStatus(started.run_id)).toBe("queued")
      const ids = { run_id: started.run_id, step_id: `${started.run_id}:0`, attempt_id: `${started.run_id}:0:1` }
      await h.repo((repo) =>
        Effect.andThen(
          repo.startAttempt({ attempt_id: ids.attempt_id, step_id: ids.step_id, run_id: ids.run_id, attempt: 1, started_at: at() }),
          write(repo, ids)
        )
      )
      await h.use((wf) => wf.cancel(holder.run_id))
      return started.run_id
    }

    it("replays an attempt recorded succeeded from its record: the step is not executed again", async () => {
      const run_id = await runAfter("replay-ok", { type: "Http", args: { method: "POST" }, idempotency_key: "pay-1" }, (repo, ids) =>
        Effect.all([
          repo.transition("step", ids.step_id, ["queued"], "running", { at: at() }),
          repo.transition("attempt", ids.attempt_id, ["running"], "succeeded", { at: at(), result: { recorded: true } }),
          repo.transition("step", ids.step_id, ["running"], "succeeded", { at: at() })
        ]))
      await settle(run_id, "succeeded")
      expect(callsOf(run_id)).toEqual([])
      const step = (await h.detail(run_id)).steps[0]!
      expect(step.status).toBe("succeeded")
      expect(step.attempts.map((a) => [a.attempt, a.status, a.result])).toEqual([[1, "succeeded", { recorded: true }]])
    })

    it("replays an attempt recorded failed with its recorded error, without executing it", async () => {
      const run_id = await runAfter("replay-failed", { type: "Http", args: { method: "POST" } }, (repo, ids) =>
        repo.transition("attempt", ids.attempt_id, ["running"], "failed", {
          at: at(),
          error: { code: "http_status", message: "HTTP 503" }
        }))
      await eventually(
        () => admin.events("run.paused").some((e) => e.payload.run_id === run_id),
        "the retry pause",
        20_000
      )
      const detail = await h.detail(run_id)
      expect(detail.run).toMatchObject({ status: "paused", paused_reason: "retry" })
      expect(detail.run.paused_detail).toContain("attempt 1 failed: http_status")
      expect(detail.steps[0]!.attempts.map((a) => [a.status, a.error?.code])).toEqual([["failed", "http_status"]])
      expect(callsOf(run_id)).toEqual([])
      await h.use((wf) => wf.cancel(run_id))
    })

    it("records an attempt that had started as interrupted; for an idempotent step it does not use up max_attempts", async () => {
      const run_id = await runAfter("replay-running", { type: "Llm", max_attempts: 1 }, (repo, ids) =>
        repo.transition("step", ids.step_id, ["queued"], "running", { at: at() }))
      await settle(run_id, "succeeded")
      const step = (await h.detail(run_id)).steps[0]!
      expect(step.attempts.map((a) => [a.attempt, a.status, a.error?.code ?? null])).toEqual([
        [1, "failed", "interrupted"],
        [2, "succeeded", null]
      ])
      expect(callsOf(run_id)).toEqual([0])
    })
})
}
