/**
 * Events of the workflow engine (issue 12), each published after the change
 * it announces is committed, with envelope scope `{kind: "run", run_id}`:
 *
 * | Type | Payload | When |
 * |---|---|---|
 * | `run.queued` | `ExecutionRun` | the run was recorded (it waits for its lane) |
 * | `run.started` | `ExecutionRun` | it took its lane and runs |
 * | `run.paused` | `{run_id, step_index, reason, approval_id, resume_token?}` | it waits for an approval |
 * | `run.resumed` | `ExecutionRun` | the pause was approved |
 * | `run.completed` / `run.failed` / `run.cancelled` | `ExecutionRun` | it ended |
 * | `step.updated` | `ExecutionStep` | a step changed status |
 * | `attempt.updated` | `ExecutionAttempt` | an attempt started or ended |
 *
 * All go to operator clients holding `operator.read`. `run.paused` carries the
 * pause's resume token, the only place it is ever handed out (only its digest
 * is stored): clients holding `operator.write` (the admin token always) get it
 * with `resume_token`; readers without write get the same event without it.
 *
 * @module
 */
import { Schema } from "effect"
import { type Audience, make, OPERATORS_READ } from "../ws-sessions/GatewayEvent.ts"
import { ExecutionAttempt, ExecutionRun, ExecutionStep } from "./runs/schema.ts"

/** Operator clients holding `operator.write` (the admin token always): who may resume runs. */
export const RUN_WRITERS: Audience = { roles: ["client"], requiredScopes: ["operator.write"] }

/** Operator readers that do not hold `operator.write` (they get `run.paused` without the token). */
export const RUN_READERS_ONLY: Audience = { roles: ["client"], requiredScopes: ["operator.read"], withoutScopes: ["operator.write"] }

/** `run.paused`'s payload; `resume_token` only for {@link RUN_WRITERS}. */
export const RunPausedPayload = Schema.Struct({
  run_id: Schema.String,
  step_index: Schema.Int,
  /** The pause reason (`approval` for a Confirm step, `policy`, `budget`, `retry`). */
  reason: Schema.String,
  approval_id: Schema.Int,
  resume_token: Schema.optionalKey(Schema.String)
})

/** A run paused, waiting for `approval_id`; to writers, with `resume_token`. */
export const RunPaused = make("run.paused", { payload: RunPausedPayload, audience: RUN_WRITERS })

/** The same pause for readers without `operator.write`: no `resume_token`. */
export const RunPausedForReaders = make("run.paused", { payload: RunPausedPayload, audience: RUN_READERS_ONLY })

const runEvent = <const Type extends string>(type: Type) => make(type, { payload: ExecutionRun, audience: OPERATORS_READ })

/** The run was recorded and waits for its lane. */
export const RunQueued = runEvent("run.queued")
/** The run took its lane and runs. */
export const RunStarted = runEvent("run.started")
/** A pause was approved: the run continues. */
export const RunResumed = runEvent("run.resumed")
/** Every step succeeded. */
export const RunCompleted = runEvent("run.completed")
/** A step failed (attempts used up, policy denied, a retry denied). */
export const RunFailed = runEvent("run.failed")
/** Cancelled (by `workflow/cancel` or a denied pause). */
export const RunCancelled = runEvent("run.cancelled")
/** A step changed status. */
export const StepUpdated = make("step.updated", { payload: ExecutionStep, audience: OPERATORS_READ })
/** An attempt started or ended. */
export const AttemptUpdated = make("attempt.updated", { payload: ExecutionAttempt, audience: OPERATORS_READ })

/** Every event type of this subsystem. */
export const WorkflowEvents = [
  RunQueued,
  RunStarted,
  RunPaused,
  RunResumed,
  RunCompleted,
  RunFailed,
  RunCancelled,
  StepUpdated,
  AttemptUpdated
] as const
