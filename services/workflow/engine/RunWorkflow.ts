/**
 * The durable run of a plan's steps (issue 12) as an `effect/workflow`
 * workflow. For each step, in order:
 *
 * 1. an `idempotency_key` that already succeeded in this run → the step is
 *    done without an attempt;
 * 2. budgets (while enforced) → used up: pause `budget/<i>`; approving stops
 *    enforcing them for the run;
 * 3. the policy gate and, when it allows the step, its first attempt, in one
 *    activity `step/<i>` (against the run's snapshot): deny → the run fails
 *    `policy_denied`; require_approval → pause `policy/<i>`;
 * 4. the other attempts `step/<i>/attempt/<n>` (activities calling
 *    `StepExecutor`; the first one too after a policy pause): a failed attempt is retried while attempts remain when the step is
 *    idempotent (an `idempotency_key`, or not state-changing); otherwise it
 *    pauses `retry/<i>/<n>` and approving runs one more attempt. An attempt
 *    of an idempotent step interrupted by a stop of the gateway does not
 *    count against `max_attempts`.
 *
 * A `Confirm` step is itself a pause (`confirm/<i>`). A pause waits on a
 * `DurableDeferred` of the same name, completed with a {@link PauseDecision};
 * a denied pause ends the run (cancelled; a denied retry fails it).
 *
 * Every decision is an activity or a deferred, so a replay (after a resume, a
 * restart or a crash) takes the same path without executing a completed
 * attempt again. {@link RunHooks} keeps the records, and an attempt checks
 * them before it runs: one whose end was recorded before a crash (but whose
 * activity result was not stored) is replayed from its record, one that had
 * started is `interrupted`, and none runs once the run was cancelled (the
 * run then ends with {@link RunCancelled}). The last step's successful
 * attempt records the run's end in its own transaction, so a one-step run
 * costs the engine two requests (the run and `step/0`; issue 22 §1).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Activity from "effect/workflow/Activity"
import * as DurableDeferred from "effect/workflow/DurableDeferred"
import * as Workflow from "effect/workflow/Workflow"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import { isStateChanging } from "../../planner/schema.ts"
import { WorkflowBudgets, WorkflowStep } from "../runs/schema.ts"
import { type AttemptContext, StepExecutor } from "../StepExecutor.ts"
import {
  type AttemptEnd,
  BudgetVerdict,
  GateVerdict,
  type Pause,
  pauseName,
  type RunEnd,
  RunHooks
} from "./RunHooks.ts"

/** The payload of a run: its id (the workflow's idempotency key), its steps and budgets. */
export const RunPayload = Schema.Struct({
  run_id: Schema.String,
  steps: Schema.Array(WorkflowStep),
  budgets: Schema.optionalKey(WorkflowBudgets)
})
export type RunPayload = typeof RunPayload.Type

/** What an operator decided at a pause. */
export const PauseDecision = Schema.Struct({
  approved: Schema.Boolean,
  /** Who resolved the pause (an approval id, a token path…), for the records. */
  resolved_by: Schema.optionalKey(Schema.String)
})
export type PauseDecision = typeof PauseDecision.Type

/** One step's recorded outcome. */
export const StepOutcome = Schema.Struct({
  step_index: Schema.Number,
  result: Schema.Unknown,
  evidence: Schema.optionalKey(Schema.Unknown)
})
export type StepOutcome = typeof StepOutcome.Type

/** One attempt's recorded end (an activity's success: a failure is data, so it is recorded too). */
const AttemptResult = Schema.Union([
  Schema.Struct({
    ok: Schema.Literal(true),
    result: Schema.Unknown,
    evidence: Schema.optionalKey(Schema.Unknown),
    /** The run's end (`succeeded`) was recorded with this attempt's (the last step's) end. */
    finished: Schema.optionalKey(Schema.Boolean)
  }),
  Schema.Struct({
    ok: Schema.Literal(false),
    code: Schema.String,
    message: Schema.String,
    result: Schema.optionalKey(Schema.Unknown)
  })
])
type AttemptResult = typeof AttemptResult.Type

/** A step failed (attempts used up, a denied retry, a policy deny): the run fails. */
export class StepFailed extends Schema.TaggedError<StepFailed>()("StepFailed", {
  step_index: Schema.Number,
  code: Schema.String,
  message: Schema.String,
  result: Schema.optionalKey(Schema.Unknown)
}) {}

/** An operator denied a pause: the run ends (cancelled) without running the rest. */
export class RunDenied extends Schema.TaggedError<RunDenied>()("RunDenied", {
  step_index: Schema.Number,
  resolved_by: Schema.optionalKey(Schema.String)
}) {}

/** The run's records say it was cancelled (an operator's cancel) before step `step_index` could run: it stops. */
export class RunCancelled extends Schema.TaggedError<RunCancelled>()("RunCancelled", {
  step_index: Schema.Number
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
  error: Schema.Union([StepFailed, RunDenied, RunCancelled])
})

/** The deferred a pause named `name` ({@link pauseName}) waits on. */
export const pauseDeferred = (name: string) => DurableDeferred.make(name, { success: PauseDecision })

/** The attempt context of a step, derived only from the run id, the step index and the attempt (replay-safe). */
export const attemptContext = (run_id: string, step_index: number, step: WorkflowStep, attempt: number): AttemptContext => ({
  run_id,
  step_index,
  step_id: `${run_id}:${step_index}`,
  attempt_id: `${run_id}:${step_index}:${attempt}`,
  attempt,
  timeout_ms: step.timeout_ms
})

/**
 * True when a failed attempt of `step` may run again without asking: it has
 * an `idempotency_key`, or it changes nothing (a kind that is not
 * state-changing, or an `Http` GET, HEAD or OPTIONS).
 */
export const isRetrySafe = (step: WorkflowStep): boolean => {
  if (step.idempotency_key !== undefined) return true
  if (step.type === "Http") {
    const method = typeof step.args.method === "string" ? step.args.method.toUpperCase() : "GET"
    return method === "GET" || method === "HEAD" || method === "OPTIONS"
  }
  return !isStateChanging(step.type)
}

/**
 * The workflow's execution id for `run_id`: it depends only on the workflow
 * tag and `run_id` (the idempotency key), so the steps are not needed.
 */
export const executionIdFor = (run_id: string): Effect.Effect<string> =>
  RunWorkflow.executionId({ run_id, steps: [] })

const ALLOW: GateVerdict = { decision: "allow" }

/** Calls a {@link RunHooks} callback when the service is in the environment, else `otherwise`. */
const hook = <A>(f: (hooks: RunHooks["Service"]) => Effect.Effect<A>, otherwise: A): Effect.Effect<A> =>
  Effect.flatMap(Effect.serviceOption(RunHooks), (hooks) => (Option.isSome(hooks) ? f(hooks.value) : Effect.succeed(otherwise)))

/** A recorded call of hooks (an activity named `name`: made once per run, not again on replay). */
const record = (name: string, f: (hooks: RunHooks["Service"]) => Effect.Effect<void>) =>
  Activity.make({ name, success: Schema.Void, execute: hook(f, undefined) })

/** The error code of an attempt recorded as interrupted by a stop of the gateway (reserved: no executor uses it). */
export const INTERRUPTED = "interrupted"
/**
 * The error code the attempt activity returns when the run was cancelled
 * before the attempt could run (only in the engine's journal: no attempt is
 * recorded; no executor uses it).
 */
const RUN_CANCELLED = "run_cancelled"

/** An executor's outcome as the attempt's end. */
const runExecutor = (step: WorkflowStep, context: AttemptContext) =>
  Effect.gen(function*() {
    const executor = yield* StepExecutor
    return yield* executor.execute(step, context).pipe(
      Effect.match({
        onFailure: (e): AttemptEnd & AttemptResult => ({
          ok: false,
          code: e.code,
          message: e.message,
          ...(e.result === undefined ? {} : { result: e.result }),
          ...(e.artifacts === undefined ? {} : { artifacts: e.artifacts })
        }),
        onSuccess: (outcome): AttemptEnd & AttemptResult => ({
          ok: true,
          result: outcome.result ?? null,
          ...(outcome.evidence === undefined ? {} : { evidence: outcome.evidence }),
          ...(outcome.cost === undefined ? {} : { cost: outcome.cost }),
          ...(outcome.artifacts === undefined ? {} : { artifacts: outcome.artifacts })
        })
      }),
      Effect.timeoutOrElse({
        duration: context.timeout_ms,
        orElse: () =>
          Effect.succeed<AttemptEnd & AttemptResult>({
            ok: false,
            code: "timeout",
            message: `attempt timed out after ${context.timeout_ms} ms`
          })
      })
    )
  })

/** Which attempt of which step runs, with what it needs (see {@link attemptBody}). */
interface AttemptSpec {
  readonly run_id: string
  readonly step_index: number
  readonly step: WorkflowStep
  readonly attempt: number
  readonly counted: number
  readonly verdict: GateVerdict
  readonly last: boolean
}

/**
 * One attempt (the body of the activity `step/<i>/attempt/<n>`, and of
 * `step/<i>` for the first attempt of an allowed step); a failure is its
 * recorded result. The records decide first ({@link AttemptStart}): an
 * attempt whose end is already recorded (the gateway stopped after recording
 * it, before the engine stored this activity's result) is replayed from its
 * record and never executed again; one that had started is `interrupted`.
 * `counted`: the attempts before this one that count against
 * `max_attempts` (for `retry`). `last`: the step is the run's last, so a
 * success also records the run's end, in the same transaction
 * (`finished: true` in the result; the workflow then records no `finished`).
 */
const attemptBody = (
  { attempt, counted, last, run_id, step, step_index, verdict }: AttemptSpec
): Effect.Effect<AttemptResult, never, StepExecutor> =>
  Effect.gen(function*() {
    const start = yield* hook((h) => h.attemptStarted(run_id, step_index, attempt, verdict), { _tag: "fresh" as const })
    let end: AttemptEnd & AttemptResult
    switch (start._tag) {
      case "cancelled":
        return { ok: false as const, code: RUN_CANCELLED, message: "the run was cancelled" }
      case "ended":
        end = start.end
        break
      case "interrupted":
        end = { ok: false, code: INTERRUPTED, message: "the gateway stopped during this attempt; it was not run again" }
        break
      case "fresh":
        end = yield* runExecutor(step, attemptContext(run_id, step_index, step, attempt))
    }
    // Attempts remain: the step goes back to queued (retried at once, or after a retry approval).
    const retry = !end.ok && (countsAgainstMax(step, end.code) ? counted + 1 < step.max_attempts : true)
    const finishes = last && end.ok
    const started_at = start._tag === "fresh" ? start.started_at : undefined
    yield* hook((h) => h.attemptEnded(run_id, step_index, attempt, end, retry, { started_at, finishes }), undefined)
    const { artifacts: _artifacts, cost: _cost, ...recorded } = end as AttemptEnd & AttemptResult & { cost?: unknown }
    return (finishes ? { ...recorded, finished: true } : recorded) as AttemptResult
  })

/** Attempt `attempt` of a step, as the activity `step/<i>/attempt/<n>` (after a pause, and retries). */
const attemptActivity = (spec: AttemptSpec) =>
  Activity.make({
    name: `step/${spec.step_index}/attempt/${spec.attempt}`,
    success: AttemptResult,
    execute: attemptBody(spec)
  })

/**
 * What the activity `step/<i>` did: the gate's verdict and, when it allowed
 * the step, its first attempt; `interrupted`: the engine had an interrupt
 * pending (a cancel) when it started, so it did neither.
 */
const StepStart = Schema.Struct({
  verdict: GateVerdict,
  attempt: Schema.optionalKey(AttemptResult),
  interrupted: Schema.optionalKey(Schema.Boolean)
})

/**
 * The engine's interrupt signal (`ClusterWorkflowEngine`'s own deferred, by
 * its name): set once `WorkflowRuns.cancel` interrupted the execution.
 */
const InterruptSignal = DurableDeferred.make("Workflow/InterruptSignal")

/**
 * Whether a cancel of the run is pending. The engine checks it before it
 * starts an activity, but an interrupt sent while the previous activity was
 * in flight may be handled only after the next one has been started (the
 * gate and the first attempt used to be two activities, two checks): an
 * activity that would start a step's work checks it again, from its own
 * cache or the engine's storage (one read).
 */
const interruptPending = Effect.flatMap(
  Effect.serviceOption(WorkflowEngine.WorkflowEngine),
  (engine) => Option.isNone(engine) ? Effect.succeed(false) : Effect.map(engine.value.deferredResult(InterruptSignal), Option.isSome)
)

/**
 * The policy gate of a step and, when it allows it, the step's first attempt
 * in one activity `step/<i>` (issue 22 §1: one engine request per step
 * instead of two; the attempt keeps its span `step/<i>/attempt/1`). Replayed
 * after a stop like any activity: the gate is asked again only when the
 * engine had not stored this activity's result, and the attempt's own
 * records then decide ({@link attemptBody}). A deny or a required approval
 * starts nothing: the workflow records it or pauses, and the first attempt
 * runs later as `step/<i>/attempt/1`.
 */
const stepActivity = (run_id: string, step_index: number, step: WorkflowStep, last: boolean) =>
  Activity.make({
    name: `step/${step_index}`,
    success: StepStart,
    execute: Effect.gen(function*() {
      // The first step's activity is the run's first: the engine's own check is enough.
      if (step_index > 0 && (yield* interruptPending)) return { verdict: ALLOW, interrupted: true }
      const verdict = yield* hook((h) => h.gate(run_id, step_index), ALLOW)
      if (verdict.decision !== "allow") return { verdict }
      const attempt = yield* attemptBody({ run_id, step_index, step, attempt: 1, counted: 0, verdict, last }).pipe(
        Effect.withSpan(`step/${step_index}/attempt/1`)
      )
      return { verdict, attempt }
    })
  })

/**
 * Whether a failed attempt with error `code` uses up one of the step's
 * `max_attempts`: every failure does, except an attempt of an idempotent
 * step ({@link isRetrySafe}) interrupted by a stop of the gateway (issue 20
 * point 11: crashes do not use up a safe step's attempts).
 */
export const countsAgainstMax = (step: WorkflowStep, code: string): boolean => !(code === INTERRUPTED && isRetrySafe(step))

const endOf = (error: StepFailed | RunDenied | RunCancelled): RunEnd => {
  switch (error._tag) {
    case "RunDenied":
      return { status: "denied", step_index: error.step_index }
    case "RunCancelled":
      return { status: "cancelled" }
    case "StepFailed":
      return { status: "failed", step_index: error.step_index, code: error.code, message: error.message }
  }
}

/** Pauses the run and waits for the decision; `true` when approved. */
const pauseFor = (run_id: string, pause: Pause) =>
  Effect.gen(function*() {
    const name = pauseName(pause)
    yield* record(`paused/${name}`, (h) => h.paused(run_id, pause))
    const decision = yield* DurableDeferred.await(pauseDeferred(name))
    if (decision.approved) yield* record(`resumed/${name}`, (h) => h.resumed(run_id, pause))
    return decision
  })

/**
 * Runs the attempts of one (gated) step; its outcome (`finished`: the run's
 * end was recorded with it), or `StepFailed`/`RunDenied`/`RunCancelled`.
 * `first`: the first attempt's result when it already ran (in `step/<i>`).
 */
const runAttempts = (
  run_id: string,
  step_index: number,
  step: WorkflowStep,
  verdict: GateVerdict,
  last: boolean,
  first?: AttemptResult
) =>
  Effect.gen(function*() {
    let counted = 0
    for (let attempt = 1;; attempt++) {
      const result = attempt === 1 && first !== undefined
        ? first
        : yield* attemptActivity({ run_id, step_index, step, attempt, counted, verdict, last })
      if (result.ok) {
        return {
          outcome: { step_index, result: result.result, ...(result.evidence === undefined ? {} : { evidence: result.evidence }) },
          finished: result.finished === true
        }
      }
      if (result.code === RUN_CANCELLED) return yield* new RunCancelled({ step_index })
      const failed = new StepFailed({
        step_index,
        code: result.code,
        message: result.message,
        ...(result.result === undefined ? {} : { result: result.result })
      })
      if (countsAgainstMax(step, result.code)) counted++
      if (counted >= step.max_attempts) return yield* failed
      if (isRetrySafe(step)) continue
      const decision = yield* pauseFor(run_id, {
        kind: "retry",
        step_index,
        attempt,
        detail: `Retry required — step ${step_index} is not idempotent (attempt ${attempt} failed: ${result.code})`,
        context: { attempt, error: { code: result.code, message: result.message }, max_attempts: step.max_attempts }
      })
      if (!decision.approved) return yield* failed
    }
  })

/**
 * When the engine applies a cancel (`WorkflowRuns.cancel` interrupts the
 * execution; it takes effect at the run's next activity, so after the attempt
 * in flight has ended), the run's records end too, from the activity
 * `cancelled`: `Workflow.cancel` normally wrote them already (then this
 * writes nothing), but after a crash between the interrupt and those writes
 * this is what ends them. Only a cancel does this, not a stop of the gateway
 * (the engine abandons that run for a replay instead; `interrupted` stays false).
 */
const recordCancelWhenInterrupted = (run_id: string) =>
  Effect.gen(function*() {
    const instance = yield* WorkflowEngine.WorkflowInstance
    yield* Workflow.addFinalizer(() =>
      instance.interrupted && !instance.abandoned
        ? record("cancelled", (h) => h.finished(run_id, { status: "cancelled" }))
        : Effect.void
    )
  })

/** The workflow body (see the module documentation). */
export const runSteps = (payload: RunPayload) =>
  Effect.gen(function*() {
    const run_id = payload.run_id
    yield* recordCancelWhenInterrupted(run_id)
    const outcomes: Array<StepOutcome> = []
    const succeededKeys = new Set<string>()
    let endRecorded = false
    let budgetsEnforced = payload.budgets !== undefined && Object.keys(payload.budgets).length > 0
    for (let step_index = 0; step_index < payload.steps.length; step_index++) {
      const step = payload.steps[step_index]!
      const deny = (resolved_by: string | undefined) =>
        new RunDenied({ step_index, ...(resolved_by === undefined ? {} : { resolved_by }) })
      if (step.type === "Confirm") {
        const decision = yield* pauseFor(run_id, {
          kind: "confirm",
          step_index,
          detail: `confirm step ${step_index}`,
          ...(typeof step.args.prompt === "string" ? { prompt: step.args.prompt } : {}),
          context: { args: step.args }
        })
        if (!decision.approved) return yield* deny(decision.resolved_by)
        yield* record(`done/${step_index}`, (h) => h.stepDone(run_id, step_index, decision))
        outcomes.push({ step_index, result: decision })
        continue
      }
      if (step.idempotency_key !== undefined && succeededKeys.has(step.idempotency_key)) {
        const result = { skipped: true, reason: "idempotency_key already succeeded in this run", idempotency_key: step.idempotency_key }
        yield* record(`done/${step_index}`, (h) => h.stepDone(run_id, step_index, result))
        outcomes.push({ step_index, result })
        continue
      }
      if (budgetsEnforced) {
        const budget = yield* Activity.make({
          name: `budget/${step_index}`,
          success: BudgetVerdict,
          execute: hook((h) => h.budget(run_id, step_index), { exceeded: false })
        })
        if (budget.exceeded) {
          const decision = yield* pauseFor(run_id, {
            kind: "budget",
            step_index,
            detail: "Budget exceeded — continue execution?",
            context: budget.context
          })
          if (!decision.approved) return yield* deny(decision.resolved_by)
          budgetsEnforced = false
        }
      }
      const last = step_index === payload.steps.length - 1
      const { attempt: first, interrupted, verdict } = yield* stepActivity(run_id, step_index, step, last)
      // A cancel is pending: suspend, and the engine applies it (the finalizer of `recordCancelWhenInterrupted`).
      if (interrupted === true) return yield* Workflow.suspend(yield* WorkflowEngine.WorkflowInstance)
      if (verdict.decision === "deny") {
        yield* record(`denied/${step_index}`, (h) => h.denied(run_id, step_index, verdict))
        return yield* new StepFailed({
          step_index,
          code: "policy_denied",
          message: `policy denied ${verdict.tool_id ?? step.type}${verdict.target ? ` (${verdict.target})` : ""}`
        })
      }
      if (verdict.decision === "require_approval") {
        const decision = yield* pauseFor(run_id, {
          kind: "policy",
          step_index,
          detail: `policy requires approval for '${verdict.tool_id ?? step.type}'${verdict.target ? ` (${verdict.target})` : ""}`,
          context: verdict
        })
        if (!decision.approved) return yield* deny(decision.resolved_by)
      }
      const { finished, outcome } = yield* runAttempts(run_id, step_index, step, verdict, last, first)
      if (step.idempotency_key !== undefined) succeededKeys.add(step.idempotency_key)
      outcomes.push(outcome)
      endRecorded = finished
    }
    // The last step's attempt recorded the run's end with its own (no engine request for it), unless the
    // last step needed none (a Confirm step, an idempotency key already done).
    if (!endRecorded) yield* record("finished", (h) => h.finished(run_id, { status: "succeeded" }))
    return { run_id, steps: outcomes }
  }).pipe(
    Effect.tapError((error) => record("finished", (h) => h.finished(payload.run_id, endOf(error))))
  )

/** Registers the workflow with the engine in the environment; needs a `StepExecutor`. */
export const RunWorkflowLayer = RunWorkflow.toLayer(runSteps)
