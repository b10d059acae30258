/**
 * What {@link RunWorkflow} asks of the rest of the gateway (issue 12): the
 * engine calls these from inside activities, so each call is recorded by the
 * engine and made once per state change (again only when an activity is
 * re-run after a crash in the middle of it). `services/workflow/RunRecorder.ts`
 * implements them: run records, policy gate, budgets, approvals and resume
 * tokens, events. Without the service in the environment (the engine tests)
 * every gate allows, no budget is exceeded and nothing is recorded.
 *
 * @module
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** Why a run waits for an operator: a `Confirm` step, a policy approval, a used-up budget, a retry of a non-idempotent step. */
export const PauseKind = Schema.Literals(["confirm", "policy", "budget", "retry"])
export type PauseKind = typeof PauseKind.Type

/** One pause of a run: its kind, the step, and (retry) the attempt that failed. */
export interface Pause {
  readonly kind: PauseKind
  readonly step_index: number
  /** The failed attempt a retry pause is about. */
  readonly attempt?: number | undefined
  /** Why, for operators (the approval's context `detail` and the run's `paused_detail`). */
  readonly detail: string
  /** The approval's prompt when the step gives one (a `Confirm` step's `args.prompt`); else the kind's own sentence. */
  readonly prompt?: string | undefined
  /** The approval's context (JSON): policy suggestions, budgets and spending, the failure. */
  readonly context?: unknown
}

/**
 * The name of a pause's deferred (and of its recorded activities): stable
 * across replays. `confirm/<i>`, `policy/<i>`, `budget/<i>`, `retry/<i>/<attempt>`.
 */
export const pauseName = (pause: Pick<Pause, "kind" | "step_index" | "attempt">): string =>
  pause.kind === "retry" ? `retry/${pause.step_index}/${pause.attempt ?? 0}` : `${pause.kind}/${pause.step_index}`

/** The policy gate's verdict on one step (recorded, so a replay never re-evaluates it). */
export const GateVerdict = Schema.Struct({
  decision: Schema.Literals(["allow", "deny", "require_approval"]),
  /** The tool id the step was judged as (absent for steps that are never gated). */
  tool_id: Schema.optionalKey(Schema.String),
  /** What was matched (the URL, the command line, the capability). */
  target: Schema.optionalKey(Schema.String),
  /** The full evaluation (`ToolCallEvaluation`), stored with the attempt. */
  evaluation: Schema.optionalKey(Schema.Unknown),
  /** Override ids that lifted an approval. */
  applied_override_ids: Schema.optionalKey(Schema.Array(Schema.String))
})
export type GateVerdict = typeof GateVerdict.Type

/** The budget check before a step: exceeded or not, with what was spent (the approval's context). */
export const BudgetVerdict = Schema.Struct({
  exceeded: Schema.Boolean,
  context: Schema.optionalKey(Schema.Unknown)
})
export type BudgetVerdict = typeof BudgetVerdict.Type

/** How an attempt ended. */
export type AttemptEnd =
  | { readonly ok: true; readonly result: unknown; readonly cost?: unknown; readonly artifacts?: ReadonlyArray<unknown> }
  | {
    readonly ok: false
    readonly code: string
    readonly message: string
    readonly result?: unknown
    readonly cost?: unknown
    readonly artifacts?: ReadonlyArray<unknown>
  }

/**
 * What the records say about an attempt about to run:
 * - `fresh`: it is recorded now (`running`) and runs;
 * - `ended`: it had already ended before the gateway stopped (its record is
 *   `succeeded`, `failed` or `timed_out`) but the engine had not stored its
 *   result: `end` is the recorded outcome, replayed instead of running it again;
 * - `interrupted`: it had started and not ended (the gateway stopped during
 *   it): it is now recorded failed `interrupted` and not run again;
 * - `cancelled`: the run was cancelled (its step is no longer queued, or the
 *   attempt was cancelled): nothing runs and the run stops.
 */
export type AttemptStart =
  /** `started_at`: the time recorded as the attempt's start (its duration is measured from it without a re-read). */
  | { readonly _tag: "fresh"; readonly started_at?: string | undefined }
  | { readonly _tag: "ended"; readonly end: AttemptEnd }
  | { readonly _tag: "interrupted" }
  | { readonly _tag: "cancelled" }

/** How a run ended, as the engine saw it. */
export type RunEnd =
  | { readonly status: "succeeded" }
  | { readonly status: "failed"; readonly step_index: number; readonly code: string; readonly message: string }
  /** A pause was denied: the run is cancelled. */
  | { readonly status: "denied"; readonly step_index: number }
  /**
   * The run was cancelled: its records said so before a step could run, or
   * the engine applied a cancel (`WorkflowRuns.cancel`), also after a restart.
   */
  | { readonly status: "cancelled" }

/** Callbacks of the run workflow; each must not fail (a failure is a defect of the run). */
export class RunHooks extends Context.Service<RunHooks, {
  /** The policy gate of step `step_index`, against the run's policy snapshot. */
  readonly gate: (run_id: string, step_index: number) => Effect.Effect<GateVerdict>
  /** Whether the run's budgets are used up before step `step_index` (only asked while they are enforced). */
  readonly budget: (run_id: string, step_index: number) => Effect.Effect<BudgetVerdict>
  /**
   * Attempt `attempt` of step `step_index` is about to run; what the records
   * say decides whether it does ({@link AttemptStart}).
   */
  readonly attemptStarted: (
    run_id: string,
    step_index: number,
    attempt: number,
    verdict: GateVerdict
  ) => Effect.Effect<AttemptStart>
  /**
   * The attempt ended; `retry`: it failed and attempts remain, so the step
   * goes back to queued (else the step ends with it). Also called for an
   * attempt replayed from its record (`ended`, `interrupted`): every write is
   * conditional, so only what a stop left undone is written.
   * `options.started_at`: the attempt's recorded start when the caller has it
   * (a fresh attempt), so it is not read again; `options.finishes`: the
   * attempt is the last step's and it succeeded, so the run's end
   * (`succeeded`, as {@link finished} would record it) is written in the same
   * transaction (issue 22 §1: one transaction and no engine request of its
   * own for the end of a run).
   */
  readonly attemptEnded: (
    run_id: string,
    step_index: number,
    attempt: number,
    end: AttemptEnd,
    retry: boolean,
    options?: {
      readonly started_at?: string | undefined
      readonly finishes?: boolean | undefined
    }
  ) => Effect.Effect<void>
  /** Policy denied step `step_index`: recorded as a failed attempt (`policy_denied`). */
  readonly denied: (run_id: string, step_index: number, verdict: GateVerdict) => Effect.Effect<void>
  /** Step `step_index` is done without an attempt (a `Confirm` decision, an idempotency key already succeeded). */
  readonly stepDone: (run_id: string, step_index: number, result: unknown) => Effect.Effect<void>
  /** The run pauses: an approval and a resume token are created (nothing when the run is no longer running: cancelled). */
  readonly paused: (run_id: string, pause: Pause) => Effect.Effect<void>
  /** An approved pause: the run continues (a budget pause also stops enforcing the budgets). */
  readonly resumed: (run_id: string, pause: Pause) => Effect.Effect<void>
  /** The run ended. */
  readonly finished: (run_id: string, end: RunEnd) => Effect.Effect<void>
}>()("svc-gateway/workflow/RunHooks") {}
