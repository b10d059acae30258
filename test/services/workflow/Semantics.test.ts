/**
 * Issue 12 §2 semantics on the workflow service (fake executor, SQLite file):
 * lanes (one run at a time per key and lane, in arrival order; a paused run
 * holds its lane), retries (idempotent steps retried, a non-idempotent one
 * pauses with a retry approval), idempotency keys scoped to the run, budgets
 * (pause with a budget approval; approving stops enforcing them), cancel of a
 * queued run, and the events announcing each change. Cancels of running and
 * paused runs: Cancel.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { devicePrincipal } from "../../support/connections.ts"
import { eventually } from "../../support/eventually.ts"
import { callsOf } from "./engine/support.ts"
import { makeWorkflowRuntime, workflowHelpers, type WorkflowRuntime } from "./support.ts"

describe("workflow semantics", () => {
  let runtime: WorkflowRuntime
  let h: ReturnType<typeof workflowHelpers>
  let admin: Awaited<ReturnType<ReturnType<typeof workflowHelpers>["watch"]>>
  let reader: typeof admin

  beforeAll(async () => {
    runtime = makeWorkflowRuntime()
    h = workflowHelpers(runtime)
    admin = await h.watch("admin")
    reader = await h.watch("reader", devicePrincipal("dev_reader", ["operator.read"]))
  })
  afterAll(async () => {
    await runtime?.dispose()
  })

  const settle = (run_id: string, status: string) =>
    eventually(async () => (await h.runStatus(run_id)) === status, `run ${run_id} ${status}`, 20_000)
  const pauseOf = (run_id: string) => admin.events("run.paused").filter((e) => e.payload.run_id === run_id)
  const respond = (approval_id: number, decision: "approved" | "denied") =>
    h.approvals((a) => a.respond(approval_id, { decision }, { kind: "http" }))

  it("runs one run at a time per (key, lane), in arrival order; a paused run holds its lane", async () => {
    const key = "agent:lanes:main"
    const first = await h.start([{ type: "Confirm" }], { key })
    const second = await h.start([{ type: "Llm" }], { key })
    const other = await h.start([{ type: "Llm" }], { key: "agent:other:main" })
    await eventually(() => pauseOf(first.run_id).length === 1, "first paused", 20_000)
    await settle(other.run_id, "succeeded")
    expect(await h.runStatus(second.run_id)).toBe("queued")
    expect(callsOf(second.run_id)).toEqual([])
    await respond(pauseOf(first.run_id)[0]!.payload.approval_id, "approved")
    await settle(first.run_id, "succeeded")
    await settle(second.run_id, "succeeded")
    const [a, b] = [await h.detail(first.run_id), await h.detail(second.run_id)]
    expect(Date.parse(b.run.started_at!)).toBeGreaterThanOrEqual(Date.parse(a.run.finished_at!))
  })

  it("retries an idempotent step until it succeeds, one attempt record each", async () => {
    const started = await h.start([{ type: "Llm", args: { fail_times: 2 }, max_attempts: 3 }])
    await settle(started.run_id, "succeeded")
    const step = (await h.detail(started.run_id)).steps[0]!
    expect(step.attempts.map((a) => [a.attempt, a.status, a.error?.code ?? null])).toEqual([
      [1, "failed", "flaky"],
      [2, "failed", "flaky"],
      [3, "succeeded", null]
    ])
    expect(step.attempts.every((a) => typeof a.cost?.duration_ms === "number")).toBe(true)
  })

  it("fails the step and the run when attempts are used up; later steps are skipped", async () => {
    const started = await h.start([{ type: "Llm", args: { fail: "boom" }, max_attempts: 2 }, { type: "Llm" }])
    await settle(started.run_id, "failed")
    const run = await h.detail(started.run_id)
    expect(run.steps.map((s) => s.status)).toEqual(["failed", "skipped"])
    expect(run.steps[0]!.attempts.map((a) => a.status)).toEqual(["failed", "failed"])
    expect(callsOf(started.run_id)).toEqual([0, 0])
    expect(admin.events("run.failed").some((e) => e.payload.run_id === started.run_id)).toBe(true)
  })

  it("pauses a non-idempotent step's retry for an approval; approving runs one more attempt", async () => {
    const started = await h.start([{ type: "Http", args: { method: "POST", fail_times: 1 } }])
    await eventually(() => pauseOf(started.run_id).length === 1, "retry pause", 20_000)
    const pause = pauseOf(started.run_id)[0]!.payload
    expect(pause).toMatchObject({ step_index: 0, reason: "retry" })
    const approval = await h.approvals((a) => a.get(pause.approval_id))
    expect(approval).toMatchObject({ kind: "retry", status: "pending", prompt: "Retry required — step is not idempotent" })
    expect((await h.detail(started.run_id)).run).toMatchObject({ status: "paused", paused_reason: "retry" })
    await respond(pause.approval_id, "approved")
    await settle(started.run_id, "succeeded")
    expect(callsOf(started.run_id)).toEqual([0, 0])
  })

  it("a denied retry fails the run", async () => {
    const started = await h.start([{ type: "Http", args: { method: "POST", fail: "http_status" } }])
    await eventually(() => pauseOf(started.run_id).length === 1, "retry pause", 20_000)
    await respond(pauseOf(started.run_id)[0]!.payload.approval_id, "denied")
    await settle(started.run_id, "failed")
    expect(callsOf(started.run_id)).toEqual([0])
  })

  it("a step whose idempotency key already succeeded in this run is not executed again; another run executes it", async () => {
    const steps = [
      { type: "Http" as const, args: { method: "POST" }, idempotency_key: "charge-1" },
      { type: "Http" as const, args: { method: "POST" }, idempotency_key: "charge-1" }
    ]
    const one = await h.start(steps)
    await settle(one.run_id, "succeeded")
    expect(callsOf(one.run_id)).toEqual([0])
    const detail = await h.detail(one.run_id)
    expect(detail.steps.map((s) => [s.status, s.attempts.length])).toEqual([["succeeded", 1], ["succeeded", 0]])
    const two = await h.start(steps, { key: "agent:again:main" })
    await settle(two.run_id, "succeeded")
    expect(callsOf(two.run_id)).toEqual([0])
  })

  it("pauses when a budget is used up; approving continues without enforcing budgets", async () => {
    const started = await h.start(
      [{ type: "Llm", args: { cost: { usd_micros: 500 } } }, { type: "Llm", args: { cost: { usd_micros: 500 } } }, { type: "Llm" }],
      { budgets: { max_usd_micros: 100 } }
    )
    await eventually(() => pauseOf(started.run_id).length === 1, "budget pause", 20_000)
    const pause = pauseOf(started.run_id)[0]!.payload
    expect(pause).toMatchObject({ step_index: 1, reason: "budget" })
    const approval = await h.approvals((a) => a.get(pause.approval_id))
    expect(approval.kind).toBe("budget")
    // The budget fields are the context's own, beside the run's (issue 20 point 13).
    expect(approval.context).toMatchObject({
      run_id: started.run_id,
      step_index: 1,
      budgets: { max_usd_micros: 100 },
      spent: { usd_micros: 500, total_tokens: 0, elapsed_ms: expect.any(Number) },
      next_step_index: 1
    })
    expect(approval.context).not.toHaveProperty("budget")
    expect(callsOf(started.run_id)).toEqual([0])
    await respond(pause.approval_id, "approved")
    await settle(started.run_id, "succeeded")
    expect(callsOf(started.run_id)).toEqual([0, 1, 2])
    expect(pauseOf(started.run_id)).toHaveLength(1)
    expect((await h.detail(started.run_id)).run.budget_overridden_at).toBeDefined()
  })

  it("cancels a queued run without touching the run that holds the lane", async () => {
    const key = "agent:cancelq:main"
    const holder = await h.start([{ type: "Confirm" }], { key })
    const queued = await h.start([{ type: "Llm" }], { key })
    await eventually(() => pauseOf(holder.run_id).length === 1, "holder paused", 20_000)
    expect(await h.use((wf) => wf.cancel(queued.run_id, "not needed"))).toEqual({ status: "ok", run_id: queued.run_id, cancelled: true })
    const detail = await h.detail(queued.run_id)
    expect(detail.run).toMatchObject({ status: "cancelled", paused_detail: "not needed" })
    expect(detail.steps.map((s) => s.status)).toEqual(["cancelled"])
    expect(await h.runStatus(holder.run_id)).toBe("paused")
    await h.use((wf) => wf.cancel(holder.run_id))
    expect(callsOf(queued.run_id)).toEqual([])
  })

  it("announces every change after it is stored; readers get run.paused without the token", async () => {
    const started = await h.start([{ type: "Llm" }, { type: "Confirm" }])
    await eventually(() => pauseOf(started.run_id).length === 1, "paused", 20_000)
    const mine = (type: string) => admin.events(type).filter((e) => (e.payload.run_id ?? e.scope?.run_id) === started.run_id)
    expect(mine("run.queued")).toHaveLength(1)
    expect(mine("run.started")).toHaveLength(1)
    expect(mine("step.updated").map((e) => e.payload.status)).toEqual(["running", "succeeded", "paused"])
    expect(mine("attempt.updated").map((e) => e.payload.status)).toEqual(["running", "succeeded"])
    const forReader = reader.events("run.paused").filter((e) => e.payload.run_id === started.run_id)
    expect(forReader).toHaveLength(1)
    expect(forReader[0]!.payload.resume_token).toBeUndefined()
    expect(pauseOf(started.run_id)[0]!.payload.resume_token).toEqual(expect.any(String))
    await h.use((wf) => wf.resume(pauseOf(started.run_id)[0]!.payload.resume_token))
    await settle(started.run_id, "succeeded")
    await eventually(() => mine("run.completed").length === 1, "run.completed", 20_000)
    expect(mine("run.resumed")).toHaveLength(1)
    expect(reader.events("run.completed").some((e) => e.payload.run_id === started.run_id)).toBe(true)
  })
})
