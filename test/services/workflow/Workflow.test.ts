/**
 * The workflow service over the durable engine (fake executor) on a SQLite
 * file: run records follow the engine, a `Confirm` step pauses into a
 * workflow_step approval and a `run.paused` event with a single-use resume
 * token, approving the approval continues the run, denying or cancelling
 * ends it.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Approvals } from "../../../services/approvals/Approvals.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { Workflow } from "../../../services/workflow/Workflow.ts"
import { fakeConnection } from "../../support/connections.ts"
import { eventually } from "../../support/eventually.ts"
import { callsOf } from "./engine/support.ts"
import { makeWorkflowRuntime } from "./support.ts"

const makeRuntime = makeWorkflowRuntime

describe("Workflow service on sqlite (file)", () => {
  let runtime: ReturnType<typeof makeRuntime>
  const watcher = fakeConnection({ id: "watcher" })

  beforeAll(async () => {
    runtime = makeRuntime()
    await runtime.runPromise(Effect.flatMap(ConnectionRegistry, (registry) => registry.add(watcher.handle)))
  })
  afterAll(async () => {
    await runtime?.dispose()
  })

  const use = <A, E>(f: (wf: Workflow["Service"]) => Effect.Effect<A, E>) =>
    runtime.runPromise(Effect.flatMap(Workflow.useSync((x) => x), f))
  const detail = (run_id: string) => use((wf) => wf.get(run_id))
  const runStatus = async (run_id: string) => (await detail(run_id)).run.status
  const pausedEvent = (run_id: string) => watcher.events("run.paused").find((e) => e.payload.run_id === run_id)
  const start = (types: ReadonlyArray<"Http" | "Confirm" | "Llm">) =>
    use((wf) => wf.run({ key: "agent:default:main", lane: "main", steps: types.map((type) => ({ type, args: {}, max_attempts: 3, timeout_ms: 60_000 })) }))

  it("runs two steps to completion and records them", async () => {
    const started = await start(["Http", "Llm"])
    expect(started).toMatchObject({ status: "ok", key: "agent:default:main", lane: "main", steps_count: 2 })
    expect(started.plan_id).toMatch(/^plan-/)
    expect(started.request_id).toMatch(/^req-/)
    await eventually(async () => (await runStatus(started.run_id)) === "succeeded", "run succeeded", 20_000)
    const run = await detail(started.run_id)
    expect(run.steps.map((s) => s.status)).toEqual(["succeeded", "succeeded"])
    expect(run.steps.map((s) => s.attempts.map((a) => a.status))).toEqual([["succeeded"], ["succeeded"]])
    expect(callsOf(started.run_id)).toEqual([0, 1])
    const listed = await use((wf) => wf.list({ key: "agent:default:main" }))
    expect(listed.runs.some((r) => r.run_id === started.run_id)).toBe(true)
  })

  it("pauses at Confirm; the token resumes once", async () => {
    const started = await start(["Http", "Confirm", "Llm"])
    await eventually(() => pausedEvent(started.run_id) !== undefined, "run.paused", 20_000)
    const event = pausedEvent(started.run_id)!
    expect(event.payload).toMatchObject({ step_index: 1, reason: "approval" })
    expect(await runStatus(started.run_id)).toBe("paused")
    const approval = await runtime.runPromise(Effect.flatMap(Approvals.useSync((x) => x), (a) => a.get(event.payload.approval_id)))
    expect(approval).toMatchObject({ kind: "workflow_step", status: "pending", scope: { run_id: started.run_id, step_index: 1 } })
    expect(JSON.stringify(approval)).not.toContain(event.payload.resume_token)

    expect(await use((wf) => wf.resume(event.payload.resume_token))).toEqual({ status: "ok", run_id: started.run_id })
    await eventually(async () => (await runStatus(started.run_id)) === "succeeded", "run succeeded", 20_000)
    expect(callsOf(started.run_id)).toEqual([0, 2])
    const resolved = await runtime.runPromise(Effect.flatMap(Approvals.useSync((x) => x), (a) => a.get(event.payload.approval_id)))
    expect(resolved.status).toBe("approved")
    expect(resolved.resolution?.resolved_by).toEqual({ kind: "system", principal: "resume_token" })
    const again = await runtime.runPromise(Effect.flip(Effect.flatMap(Workflow.useSync((x) => x), (wf) => wf.resume(event.payload.resume_token))))
    expect(again._tag).toBe("NotFound")
  })

  it("a Confirm step's approval prompt is the step's own prompt; the context keeps the run and the step", async () => {
    const started = await use((wf) =>
      wf.run({
        key: "agent:prompt:main",
        lane: "main",
        steps: [
          { type: "Llm", args: {}, max_attempts: 3, timeout_ms: 60_000 },
          { type: "Confirm", args: { prompt: "Send the invoice to ACME?" }, max_attempts: 3, timeout_ms: 60_000 }
        ]
      }))
    await eventually(() => pausedEvent(started.run_id) !== undefined, "run.paused", 20_000)
    const event = pausedEvent(started.run_id)!
    const approval = await runtime.runPromise(Effect.flatMap(Approvals.useSync((x) => x), (a) => a.get(event.payload.approval_id)))
    expect(approval.prompt).toBe("Send the invoice to ACME?")
    expect(approval.context).toMatchObject({
      key: "agent:prompt:main",
      lane: "main",
      run_id: started.run_id,
      step_index: 1,
      confirm: { args: { prompt: "Send the invoice to ACME?" } }
    })
    // Without a prompt of its own, the sentence naming the step and the run.
    const plain = await start(["Confirm"])
    await eventually(() => pausedEvent(plain.run_id) !== undefined, "run.paused", 20_000)
    const other = await runtime.runPromise(
      Effect.flatMap(Approvals.useSync((x) => x), (a) => a.get(pausedEvent(plain.run_id)!.payload.approval_id))
    )
    expect(other.prompt).toBe(`Confirm step 0 of run ${plain.run_id}`)
    await use((wf) => wf.cancel(started.run_id))
    await use((wf) => wf.cancel(plain.run_id))
  })

  it("continues when the approval is approved, and the token is then revoked", async () => {
    const started = await start(["Confirm", "Llm"])
    await eventually(() => pausedEvent(started.run_id) !== undefined, "run.paused", 20_000)
    const event = pausedEvent(started.run_id)!
    await runtime.runPromise(Effect.flatMap(Approvals.useSync((x) => x), (a) => a.respond(event.payload.approval_id, { decision: "approved" }, { kind: "http" })))
    await eventually(async () => (await runStatus(started.run_id)) === "succeeded", "run succeeded", 20_000)
    const late = await runtime.runPromise(Effect.flip(Effect.flatMap(Workflow.useSync((x) => x), (wf) => wf.resume(event.payload.resume_token))))
    expect(late._tag).toBe("NotFound")
  })

  it("a denied approval cancels the run", async () => {
    const started = await start(["Confirm", "Llm"])
    await eventually(() => pausedEvent(started.run_id) !== undefined, "run.paused", 20_000)
    const event = pausedEvent(started.run_id)!
    await runtime.runPromise(Effect.flatMap(Approvals.useSync((x) => x), (a) => a.respond(event.payload.approval_id, { decision: "denied" }, { kind: "http" })))
    await eventually(async () => (await runStatus(started.run_id)) === "cancelled", "run cancelled", 20_000)
    expect((await detail(started.run_id)).steps.map((s) => s.status)).toEqual(["cancelled", "cancelled"])
    expect(callsOf(started.run_id)).toEqual([])
  })

  it("cancel of a paused run cancels it, its approval and its token", async () => {
    const started = await start(["Confirm", "Llm"])
    await eventually(() => pausedEvent(started.run_id) !== undefined, "run.paused", 20_000)
    const event = pausedEvent(started.run_id)!
    expect(await use((wf) => wf.cancel(started.run_id, "no longer needed"))).toEqual({ status: "ok", run_id: started.run_id, cancelled: true })
    expect(await runStatus(started.run_id)).toBe("cancelled")
    const approval = await runtime.runPromise(Effect.flatMap(Approvals.useSync((x) => x), (a) => a.get(event.payload.approval_id)))
    expect(approval.status).toBe("cancelled")
    const late = await runtime.runPromise(Effect.flip(Effect.flatMap(Workflow.useSync((x) => x), (wf) => wf.resume(event.payload.resume_token))))
    expect(late._tag).toBe("NotFound")
    // Idempotent: cancelling a cancelled run again still answers cancelled: true.
    expect(await use((wf) => wf.cancel(started.run_id))).toEqual({ status: "ok", run_id: started.run_id, cancelled: true })
    const unknown = await runtime.runPromise(Effect.flip(Effect.flatMap(Workflow.useSync((x) => x), (wf) => wf.cancel("run-nope"))))
    expect(unknown._tag).toBe("NotFound")
  })
})
