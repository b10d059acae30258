/**
 * The planner's side of `execute: true` (services/planner/execute.ts) on
 * every test database: when a plan is due to run, which steps it runs, and
 * that concurrent callers start it once (the `requested` → `starting` claim).
 * The run starter is a fake counting its calls.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import type { Approvals } from "../../../services/approvals/Approvals.ts"
import type { ApprovalStatus } from "../../../services/approvals/schema.ts"
import { makePlanExecutor } from "../../../services/planner/execute.ts"
import type { PlanToRun } from "../../../services/planner/PlanExecution.ts"
import { canonicalJson } from "../../../services/shared/canonicalJson.ts"
import { PlansRepo } from "../../../services/planner/PlansRepo.ts"
import type { PlanRequest, PlanResponse } from "../../../services/planner/schema.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { testDatabases } from "../../support/databases.ts"

const AT = "2026-01-01T00:00:00.000Z"
const trigger = { channel: "telegram", thread_id: "t-1", message: { text: "Order flowers" } }

const base = (plan_id: string) => ({ plan_id, request_id: `req-${plan_id}`, created_at: AT, trace_id: "00000000-0000-4000-8000-000000000001" })

const success = (plan_id: string): PlanResponse => ({
  ...base(plan_id),
  status: "success",
  steps: [{ type: "Research", args: { shown: true } }],
  summary: { synopsis: "s" }
})

const escalate = (plan_id: string, approval_id: number): PlanResponse => ({
  ...base(plan_id),
  status: "escalate",
  escalation: { step_index: 0, action: { type: "Confirm", args: {} }, rationale: "r", expires_at: null, approval_id }
})

/** Stores a plan asked to run, as the planner does in its creating transaction. */
const store = (response: PlanResponse, tags: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const repo = yield* PlansRepo
    const request: PlanRequest = { request_id: response.request_id, trigger, tags, execute: true }
    yield* repo.claim({
      plan_id: response.plan_id,
      request_id: response.request_id,
      status: response.status,
      request_json: canonicalJson(request),
      decision_json: { decision: "allow", rules: [] },
      created_at: AT
    })
    yield* repo.complete(response.plan_id, response)
    yield* repo.requestExecution(response.plan_id)
  })

/**
 * An executor over the repository with approvals whose statuses are
 * `statuses` and a fake run starter. Its reads yield to other fibers, so
 * concurrent callers all read the plan before any of them claims it.
 */
const executor = (statuses: Record<number, ApprovalStatus>) =>
  Effect.gen(function*() {
    const stored = yield* PlansRepo
    const repo: PlansRepo["Service"] = {
      ...stored,
      execution: (planId) => Effect.tap(stored.execution(planId), () => Effect.yieldNow),
      findByPlanId: (planId) => Effect.tap(stored.findByPlanId(planId), () => Effect.yieldNow)
    }
    const started = yield* Ref.make<ReadonlyArray<PlanToRun>>([])
    const approvals = {
      get: (id: number) =>
        statuses[id] === undefined
          ? Effect.fail(new NotFound({ message: `approval ${id} not found` }))
          : Effect.succeed({ id, status: statuses[id] })
    } as unknown as Approvals["Service"]
    const execution = {
      start: (plan: PlanToRun) =>
        Effect.gen(function*() {
          yield* Effect.yieldNow
          const all = yield* Ref.updateAndGet(started, (list) => [...list, plan])
          return { run_id: `run-${all.length}` }
        })
    }
    return { ...makePlanExecutor({ repo, approvals, execution }), started }
  })

for (const db of testDatabases) {
  layer(PlansRepo.layer.pipe(Layer.provideMerge(db.make())))(`plan execution on ${db.name}`, (it) => {
    it.effect("runs a success's own steps once, whoever asks, even concurrently", () =>
      Effect.gen(function*() {
        const repo = yield* PlansRepo
        yield* store(success("plan-s"))
        const { startIfDue, started } = yield* executor({})
        const ids = yield* Effect.all(Array.from({ length: 5 }, () => startIfDue("plan-s")), { concurrency: "unbounded" })
        const runs = yield* Ref.get(started)
        expect(runs).toHaveLength(1)
        expect(runs[0]).toEqual({
          plan_id: "plan-s",
          request_id: "req-plan-s",
          trigger,
          steps: [{ type: "Research", args: { shown: true } }]
        })
        for (const id of ids) if (id !== undefined) expect(id).toBe("run-1")
        expect(yield* startIfDue("plan-s")).toBe("run-1")
        expect(yield* repo.execution("plan-s")).toEqual({ execution_state: "started", run_id: "run-1" })
      }))

    it.effect("waits while the approval is pending, then runs the recomputed steps once approved", () =>
      Effect.gen(function*() {
        const repo = yield* PlansRepo
        yield* store(escalate("plan-e", 7), ["spend:100:EUR", "pii:none", "legal:none"])
        const statuses: Record<number, ApprovalStatus> = { 7: "pending" }
        const { startIfDue, started } = yield* executor(statuses)
        expect(yield* startIfDue("plan-e")).toBeUndefined()
        expect(yield* repo.execution("plan-e")).toEqual({ execution_state: "requested", run_id: null })
        statuses[7] = "approved"
        expect(yield* startIfDue("plan-e")).toBe("run-1")
        const [run] = yield* Ref.get(started)
        expect(run.steps.map((s) => s.type)).toEqual(["Research", "Web", "Pay", "Message"])
        expect(run.steps[2].idempotency_key).toBe("req-plan-e:2")
      }))

    it.effect("declines an escalation whose approval was denied, expired, cancelled or is gone", () =>
      Effect.gen(function*() {
        const repo = yield* PlansRepo
        const statuses: Record<number, ApprovalStatus> = { 1: "denied", 2: "expired", 3: "cancelled" }
        for (const id of [1, 2, 3, 4]) yield* store(escalate(`plan-d${id}`, id))
        const { startAllDue, started } = yield* executor(statuses)
        yield* startAllDue
        expect(yield* Ref.get(started)).toEqual([])
        for (const id of [1, 2, 3, 4]) {
          expect(yield* repo.execution(`plan-d${id}`)).toEqual({ execution_state: "declined", run_id: null })
        }
        expect(yield* repo.requestedExecutions).toEqual([])
      }))

    it.effect("leaves plans that were not asked to run alone", () =>
      Effect.gen(function*() {
        const repo = yield* PlansRepo
        yield* repo.claim({
          plan_id: "plan-n",
          request_id: "req-n",
          status: "success",
          request_json: "{}",
          decision_json: { decision: "allow", rules: [] },
          created_at: AT
        })
        yield* repo.complete("plan-n", success("plan-n"))
        const { startIfDue, started } = yield* executor({})
        expect(yield* startIfDue("plan-n")).toBeUndefined()
        expect(yield* startIfDue("plan-unknown")).toBeUndefined()
        expect(yield* Ref.get(started)).toEqual([])
        expect(yield* repo.execution("plan-n")).toEqual({ execution_state: null, run_id: null })
      }))
  })
}
