/**
 * Running a plan sent with `execute: true` (docs/planner.md "Execution"): a
 * success runs at once; an escalation runs once its approval is approved
 * (denied, expired or cancelled: never). Every path that may start the run —
 * the `POST /plan` that created the plan, a repeat of it, the planner's
 * reaction to `ApprovalResolved`, the start-up check — goes through {@link makePlanExecutor}'s
 * `startIfDue`, whose claim is one conditional write (`requested` →
 * `starting`): whoever wins it starts the run, so a duplicate notification, a
 * concurrent repeat or a restart never starts a second one.
 *
 * @module
 */
import { Effect, Result, Schema } from "effect"
import type { Approvals } from "../approvals/Approvals.ts"
import type { PlanExecutionShape } from "./PlanExecution.ts"
import type { PlansRepo } from "./PlansRepo.ts"
import { type ActionPrimitive, PlanRequest, type PlanResponse } from "./schema.ts"
import { buildSteps } from "./steps.ts"
import { parseTags } from "./tags.ts"

const decodeRequest = Schema.decodeUnknownEffect(Schema.fromJsonString(PlanRequest))

/** The stored request's steps, as a success would have had them (steps.ts is deterministic). */
const stepsOf = (request: PlanRequest): ReadonlyArray<ActionPrimitive> => {
  const tags = parseTags(request.tags, request.request_id)
  // The stored request passed parseTags when it was planned.
  return buildSteps(request, Result.isSuccess(tags) ? tags.success.spend : undefined).steps
}

/** `response` with the plan's run, when it has one. */
export const withRun = (response: PlanResponse, runId: string | undefined): PlanResponse =>
  runId === undefined || response.status === "failure" ? response : { ...response, run_id: runId }

/** The planner's side of plan execution, over its repository, the approvals and the run starter. */
export const makePlanExecutor = (deps: {
  readonly repo: PlansRepo["Service"]
  readonly approvals: Approvals["Service"]
  readonly execution: PlanExecutionShape
}) => {
  const { approvals, execution, repo } = deps

  /** Whether an escalated plan may run now: its approval approved (`undefined`: still pending). */
  const approved = (approvalId: number) =>
    approvals.get(approvalId).pipe(
      Effect.map((approval) => approval.status === "pending" ? undefined : approval.status === "approved"),
      Effect.catchTag("NotFound", () => Effect.succeed(false))
    )

  /**
   * Starts the plan's run if it was asked to run, has not started and may run
   * now. The plan's run id (also when it started earlier), else `undefined`.
   */
  const startIfDue = (planId: string): Effect.Effect<string | undefined> =>
    Effect.gen(function*() {
      const state = yield* repo.execution(planId)
      if (state?.execution_state !== "requested") return state?.run_id ?? undefined
      const plan = yield* repo.findByPlanId(planId)
      const response = plan?.response_json
      if (plan === undefined || response == null || response.status === "failure") return undefined
      if (response.status === "escalate") {
        const ok = yield* approved(response.escalation.approval_id)
        if (ok === undefined) return undefined
        if (!ok) {
          yield* repo.moveExecution(planId, "requested", "declined")
          return undefined
        }
      }
      if (!(yield* repo.moveExecution(planId, "requested", "starting"))) {
        return (yield* repo.execution(planId))?.run_id ?? undefined
      }
      const request = yield* Effect.orDie(decodeRequest(plan.request_json))
      const { run_id } = yield* execution.start({
        plan_id: planId,
        request_id: plan.request_id,
        trigger: request.trigger,
        steps: response.status === "success" ? response.steps : stepsOf(request)
      })
      yield* repo.recordRun(planId, run_id)
      return run_id
    })

  /** Every plan still waiting to run, checked again (after a restart: a start or an approval that was missed). */
  const startAllDue = Effect.flatMap(repo.requestedExecutions, (ids) => Effect.forEach(ids, startIfDue, { discard: true }))

  return { startIfDue, startAllDue }
}
