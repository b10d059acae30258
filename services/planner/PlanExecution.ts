/**
 * How the planner starts a run of a plan's steps (`POST /plan {execute:
 * true}`, docs/planner.md "Execution"). The planner decides *when* (at once
 * for a success, once its approval is approved for an escalation) and makes
 * sure it happens at most once; the implementation only starts the run. The
 * workflow subsystem provides it (services/workflow/planExecution.ts), so the
 * planner does not depend on the workflow engine.
 *
 * @module
 */
import { Context, Effect } from "effect"
import type { ActionPrimitive, PlanTrigger } from "./schema.ts"

/** A plan to run: its ids, the trigger it answers and the steps to run. */
export interface PlanToRun {
  readonly plan_id: string
  readonly request_id: string
  readonly trigger: PlanTrigger
  readonly steps: ReadonlyArray<ActionPrimitive>
}

/** Starts one run of a plan's steps; the run's id. */
export interface PlanExecutionShape {
  readonly start: (plan: PlanToRun) => Effect.Effect<{ readonly run_id: string }>
}

/**
 * The plan runner's way to start runs. Without an implementation (a planner
 * wired without the workflow engine), starting one is a defect.
 */
export const PlanExecution = Context.Reference<PlanExecutionShape>("svc-gateway/planner/PlanExecution", {
  defaultValue: () => ({
    start: (plan) => Effect.die(new Error(`plan ${plan.plan_id} asked to run, but no workflow engine is wired`))
  })
})
