/**
 * The durable run of a plan's steps (issue 12) as an `effect/workflow`
 * workflow: every step is an `Activity` calling `StepExecutor.execute`, so a
 * completed step is recorded by the engine and never executed again on a
 * replay (after a resume, a restart or a crash). A `Confirm` step pauses the
 * run on a `DurableDeferred` named after the step until it is completed with
 * a {@link ConfirmDecision}.
 *
 * Run records and pauses: every state change calls the optional
 * {@link RunHooks} from inside an activity (`started`, the step activity,
 * `paused/<i>`, `confirmed/<i>`, `finished`), so it is recorded by the
 * engine and made once. Policy gates, budgets and retries are still to come
 * (see docs/workflow-engine-notes.md).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Activity from "effect/workflow/Activity"
import * as DurableDeferred from "effect/workflow/DurableDeferred"
import * as Workflow from "effect/workflow/Workflow"
import { ActionPrimitive } from "../../planner/schema.ts"
import { type AttemptContext, StepExecutor } from "../StepExecutor.ts"
import { type RunEnd, RunHooks } from "./RunHooks.ts"

/** Default time limit of one attempt, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 60_000

/** The payload of a run: its id (the workflow's idempotency key) and its steps. */
export const RunPayload = Schema.Struct({
  run_id: Schema.String,
  steps: Schema.Array(ActionPrimitive)
})
export type RunPayload = typeof RunPayload.Type

/** What an operator decided at a `Confirm` pause. */
export const ConfirmDecision = Schema.Struct({
  approved: Schema.Boolean,
  /** Who resolved the pause (an approval id, a token path…), for the records. */
  resolved_by: Schema.optionalKey(Schema.String)
})
export type ConfirmDecision = typeof ConfirmDecision.Type

/** One step's recorded outcome (the activity's success). */
export const StepOutcome = Schema.Struct({
  step_index: Schema.Number,
  result: Schema.Unknown,
  evidence: Schema.optionalKey(Schema.Unknown)
})
export type StepOutcome = typeof StepOutcome.Type

/** A step's attempt failed (the activity's declared error: `AttemptFailed` as a schema). */
export class StepFailed extends Schema.TaggedError<StepFailed>()("StepFailed", {
  step_index: Schema.Number,
  code: Schema.String,
  message: Schema.String,
  result: Schema.optionalKey(Schema.Unknown),
  evidence: Schema.optionalKey(Schema.Unknown)
}) {}

/** An operator denied a `Confirm` pause: the run ends without running the rest. */
export class RunDenied extends Schema.TaggedError<RunDenied>()("RunDenied", {
  step_index: Schema.Number,
  resolved_by: Schema.optionalKey(Schema.String)
}) {}

/** A finished run: the outcome of every step, in order. */
export const RunResult = Schema.Struct({
  run_id: Schema.String,
  steps: Schema.Array(StepOutcome)
})
export type RunResult = typeof RunResult.Type

/** The workflow. Its execution id is derived from `run_id` only (see {@link executionIdFor}). */
export const RunWorkflow = Workflow.make("svc-gateway/workflow/Run", {
  payload: RunPayload,
  idempotencyKey: (payload) => payload.run_id,
  success: RunResult,
  error: Schema.Union([StepFailed, RunDenied])
})

/** The deferred a `Confirm` step at `step_index` waits on. */
export const confirmDeferred = (step_index: number) =>
  DurableDeferred.make(`confirm/${step_index}`, { success: ConfirmDecision })

/** Name of the activity of step `step_index` (stable across replays: it keys the recorded result). */
export const stepActivityName = (step_index: number): string => `step/${step_index}`

/** The attempt context of a step, derived only from the run id and the step index (replay-safe). */
export const attemptContext = (run_id: string, step_index: number, step: ActionPrimitive, attempt: number): AttemptContext => {
  const timeout = (step as { readonly timeout_ms?: unknown }).timeout_ms
  return {
    run_id,
    step_index,
    step_id: `${run_id}:${step_index}`,
    attempt_id: `${run_id}:${step_index}:${attempt}`,
    attempt,
    timeout_ms: typeof timeout === "number" && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS
  }
}

/**
 * The workflow's execution id for `run_id`: it depends only on the workflow
 * tag and `run_id` (the idempotency key), so the steps are not needed.
 */
export const executionIdFor = (run_id: string): Effect.Effect<string> =>
  RunWorkflow.executionId({ run_id, steps: [] })

/** Calls a {@link RunHooks} callback when the service is in the environment. */
const hook = (f: (hooks: RunHooks["Service"]) => Effect.Effect<void>): Effect.Effect<void> =>
  Effect.flatMap(Effect.serviceOption(RunHooks), (hooks) => (Option.isSome(hooks) ? f(hooks.value) : Effect.void))

/** A recorded call of hooks (an activity named `name`: made once per run, not again on replay). */
const hookActivity = (name: string, f: (hooks: RunHooks["Service"]) => Effect.Effect<void>) =>
  Activity.make({ name, success: Schema.Void, execute: hook(f) })

const stepActivity = (run_id: string, step_index: number, step: ActionPrimitive) =>
  Activity.make({
    name: stepActivityName(step_index),
    success: StepOutcome,
    error: StepFailed,
    execute: Effect.gen(function*() {
      const executor = yield* StepExecutor
      const attempt = yield* Activity.CurrentAttempt
      yield* hook((h) => h.stepStarted(run_id, step_index, attempt))
      const outcome = yield* executor.execute(step, attemptContext(run_id, step_index, step, attempt)).pipe(
        Effect.tapError((e) =>
          hook((h) =>
            h.stepEnded(run_id, step_index, attempt, {
              ok: false,
              code: e.code,
              message: e.message,
              ...(e.result === undefined ? {} : { result: e.result })
            })
          )
        ),
        Effect.mapError((e) =>
          new StepFailed({
            step_index,
            code: e.code,
            message: e.message,
            ...(e.result === undefined ? {} : { result: e.result }),
            ...(e.evidence === undefined ? {} : { evidence: e.evidence })
          })
        )
      )
      yield* hook((h) => h.stepEnded(run_id, step_index, attempt, { ok: true, result: outcome.result ?? null }))
      return {
        step_index,
        result: outcome.result ?? null,
        ...(outcome.evidence === undefined ? {} : { evidence: outcome.evidence })
      }
    })
  })

const endOf = (error: StepFailed | RunDenied): RunEnd =>
  error._tag === "RunDenied"
    ? { status: "denied", step_index: error.step_index }
    : { status: "failed", step_index: error.step_index, code: error.code, message: error.message }

/**
 * The workflow body: steps in order; a `Confirm` step waits for its
 * decision (approved → the step is done with the decision as its result;
 * denied → {@link RunDenied}); any other step runs once as an activity.
 */
export const runSteps = (payload: RunPayload) =>
  Effect.gen(function*() {
    const run_id = payload.run_id
    yield* hookActivity("started", (h) => h.started(run_id))
    const outcomes: Array<StepOutcome> = []
    for (let step_index = 0; step_index < payload.steps.length; step_index++) {
      const step = payload.steps[step_index]!
      if (step.type === "Confirm") {
        yield* hookActivity(`paused/${step_index}`, (h) => h.paused(run_id, step_index))
        const decision = yield* DurableDeferred.await(confirmDeferred(step_index))
        if (!decision.approved) {
          return yield* new RunDenied({
            step_index,
            ...(decision.resolved_by === undefined ? {} : { resolved_by: decision.resolved_by })
          })
        }
        yield* hookActivity(`confirmed/${step_index}`, (h) => h.confirmed(run_id, step_index))
        outcomes.push({ step_index, result: decision })
        continue
      }
      outcomes.push(yield* stepActivity(run_id, step_index, step))
    }
    yield* hookActivity("finished", (h) => h.finished(run_id, { status: "succeeded" }))
    return { run_id, steps: outcomes }
  }).pipe(
    Effect.tapError((error) => hookActivity("finished", (h) => h.finished(payload.run_id, endOf(error))))
  )

/** Registers the workflow with the engine in the environment; needs a `StepExecutor`. */
export const RunWorkflowLayer = RunWorkflow.toLayer(runSteps)
