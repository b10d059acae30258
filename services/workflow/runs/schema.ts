/**
 * Wire contract of the workflow engine's runs (gateway-api.md "Workflow
 * engine"; reference §6.3, §6.5; docs/workflow-runs.md): the `POST
 * /workflow/run`, `/resume`, `/cancel` bodies and results (same payloads over
 * WebSocket `workflow.*`), the stored records `ExecutionJob`, `ExecutionRun`,
 * `ExecutionStep` and `ExecutionAttempt`, and the run listing.
 *
 * Like every JSON body, unknown keys are ignored (stripped) and every string a
 * caller sends is bounded.
 *
 * @module
 */
import { Effect, Schema } from "effect"
import { isGatewayChain } from "../../domain-events/chains.ts"
import { ActionPrimitive } from "../../planner/schema.ts"
import { bounded, LARGE_JSON, SMALL_JSON } from "../../shared/json.ts"
import { DEFAULT_LANE, WorkflowKey, WorkflowLane } from "./keys.ts"
import { ATTEMPT_STATUSES, JOB_STATUSES, RUN_STATUSES, STEP_STATUSES } from "./states.ts"
import { nonEmptyText as text, intBetween } from "../../shared/schemas.ts"

// ---------------------------------------------------------------------------
// Steps and the run request
// ---------------------------------------------------------------------------

/** Attempts of a step when it names none, and the most it may name. */
export const DEFAULT_MAX_ATTEMPTS = 3
export const MAX_MAX_ATTEMPTS = 10
/** Time limit of one attempt when the step names none, and the most it may name (ms). */
export const DEFAULT_TIMEOUT_MS = 60_000
export const MAX_TIMEOUT_MS = 600_000
/** Most steps in one run. */
export const MAX_STEPS = 256
/** Longest `plan_id` / `request_id`. */
export const MAX_ID_LENGTH = 128

/**
 * One step of a run: an {@link ActionPrimitive} with the optional top-level
 * `max_attempts` (1..10, default 3) and `timeout_ms` (1..600000, default
 * 60000); decoding fills in the defaults.
 */
export const WorkflowStep = ActionPrimitive.mapFields((fields) => ({
  ...fields,
  max_attempts: intBetween(1, MAX_MAX_ATTEMPTS).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed(DEFAULT_MAX_ATTEMPTS))
  ).annotateKey({ description: `Attempts before the step fails (1..${MAX_MAX_ATTEMPTS}). Defaults to ${DEFAULT_MAX_ATTEMPTS}.` }),
  timeout_ms: intBetween(1, MAX_TIMEOUT_MS).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed(DEFAULT_TIMEOUT_MS))
  ).annotateKey({ description: `Time limit of one attempt in ms (1..${MAX_TIMEOUT_MS}). Defaults to ${DEFAULT_TIMEOUT_MS}.` })
})).annotate({ identifier: "WorkflowStep", title: "Workflow step" })
export type WorkflowStep = typeof WorkflowStep.Type

/** Limits of one run; none enforced when absent. */
export const WorkflowBudgets = Schema.Struct({
  max_usd_micros: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  max_duration_ms: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  max_total_tokens: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)))
}).annotate({ identifier: "WorkflowBudgets", title: "Budgets" })
export type WorkflowBudgets = typeof WorkflowBudgets.Type

/** `POST /workflow/run` and `workflow.run`. */
export const WorkflowRunRequest = Schema.Struct({
  key: WorkflowKey,
  lane: WorkflowLane.pipe(Schema.withDecodingDefaultKey(Effect.succeed(DEFAULT_LANE))).annotateKey({
    description: `Lane of the key (${DEFAULT_LANE} when absent).`
  }),
  plan_id: Schema.optionalKey(text(MAX_ID_LENGTH).check(Schema.makeFilter(
    (id) => isGatewayChain(id) ? "must not start with gateway. (reserved for the gateway's audit chains)" : undefined,
    { expected: "a plan id not starting with gateway." }
  ))).annotateKey({ description: "plan-<uuid> when absent. Must not start with `gateway.` (reserved audit chain ids)." }),
  request_id: Schema.optionalKey(text(MAX_ID_LENGTH)).annotateKey({ description: "req-<uuid> when absent." }),
  steps: Schema.Array(WorkflowStep).check(
    Schema.isMinLength(1, { expected: "at least one step" }),
    Schema.isMaxLength(MAX_STEPS, { expected: `at most ${MAX_STEPS} steps` })
  ),
  budgets: Schema.optionalKey(WorkflowBudgets)
}).annotate({ identifier: "WorkflowRunRequest", title: "Workflow run request", expected: "a JSON object" })
export type WorkflowRunRequest = typeof WorkflowRunRequest.Type
export type WorkflowRunRequestEncoded = typeof WorkflowRunRequest.Encoded

/** `POST /workflow/run` 200 body. */
export const WorkflowRunResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  job_id: Schema.String,
  run_id: Schema.String,
  plan_id: Schema.String,
  request_id: Schema.String,
  key: Schema.String,
  lane: WorkflowLane,
  steps_count: Schema.Int
}).annotate({ identifier: "WorkflowRunResponse" })
export type WorkflowRunResponse = typeof WorkflowRunResponse.Type

/** `POST /workflow/resume` and `workflow.resume`: the resume token handed out at the pause. */
export const WorkflowResumeRequest = Schema.Struct({ token: text(256) }).annotate({ identifier: "WorkflowResumeRequest" })
export type WorkflowResumeRequest = typeof WorkflowResumeRequest.Type

/** `POST /workflow/resume` 200 body. */
export const WorkflowResumeResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  run_id: Schema.String
}).annotate({ identifier: "WorkflowResumeResponse" })
export type WorkflowResumeResponse = typeof WorkflowResumeResponse.Type

/** `POST /workflow/cancel` and `workflow.cancel`. */
export const WorkflowCancelRequest = Schema.Struct({
  run_id: text(MAX_ID_LENGTH),
  reason: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1024, { expected: "at most 1024 characters" })))
}).annotate({ identifier: "WorkflowCancelRequest" })
export type WorkflowCancelRequest = typeof WorkflowCancelRequest.Type

/** `POST /workflow/cancel` 200 body: `cancelled` false when the run had already succeeded or failed. */
export const WorkflowCancelResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  run_id: Schema.String,
  cancelled: Schema.Boolean
}).annotate({ identifier: "WorkflowCancelResponse" })
export type WorkflowCancelResponse = typeof WorkflowCancelResponse.Type

// ---------------------------------------------------------------------------
// Records (reference §6.5)
// ---------------------------------------------------------------------------

export const JobStatus = Schema.Literals(JOB_STATUSES)
export const RunStatus = Schema.Literals(RUN_STATUSES)
export const StepStatus = Schema.Literals(STEP_STATUSES)
export const AttemptStatus = Schema.Literals(ATTEMPT_STATUSES)
export type JobStatus = typeof JobStatus.Type
export type RunStatus = typeof RunStatus.Type
export type StepStatus = typeof StepStatus.Type
export type AttemptStatus = typeof AttemptStatus.Type

/**
 * Why a run is paused: reference §6.5's approval, takeover, budget, manual,
 * policy, plus `retry` (a non-idempotent step needs an approval to run again)
 * and `cancelled` (the reference's paused_reason of a cancelled run).
 */
export const PAUSE_REASONS = ["approval", "takeover", "budget", "manual", "policy", "retry", "cancelled"] as const
export const PauseReason = Schema.Literals(PAUSE_REASONS)
export type PauseReason = typeof PauseReason.Type

/** What started a job (reference §6.5); runs started over the API are `api`. */
export const TRIGGER_KINDS = ["session", "cron", "heartbeat", "hook", "webhook", "manual", "api"] as const
export const TriggerKind = Schema.Literals(TRIGGER_KINDS)
export type TriggerKind = typeof TriggerKind.Type

const time = Schema.String.annotate({ description: "ISO-8601 UTC, millisecond precision." })
const nullableTime = Schema.NullOr(time)

/** A job: the durable request to run a plan's steps; its latest run does the work. */
export const ExecutionJob = Schema.Struct({
  job_id: Schema.String,
  key: Schema.String,
  lane: WorkflowLane,
  status: JobStatus,
  trigger_kind: TriggerKind,
  /** Always holds `plan_id` and `request_id`. */
  trigger: Schema.Record(Schema.String, Schema.Unknown),
  latest_run_id: Schema.NullOr(Schema.String),
  created_at: time,
  updated_at: time
}).annotate({ identifier: "ExecutionJob" })
export type ExecutionJob = typeof ExecutionJob.Type

/** A run (reference §6.5 `ExecutionRun`, plus plan_id, request_id and steps_count). */
export const ExecutionRun = Schema.Struct({
  run_id: Schema.String,
  job_id: Schema.String,
  key: Schema.String,
  lane: WorkflowLane,
  status: RunStatus,
  /** 1 for the first run of a job. */
  attempt: Schema.Int,
  plan_id: Schema.String,
  request_id: Schema.String,
  steps_count: Schema.Int,
  created_at: time,
  started_at: nullableTime,
  finished_at: nullableTime,
  paused_reason: Schema.optionalKey(PauseReason),
  paused_detail: Schema.optionalKey(Schema.String),
  policy_snapshot_id: Schema.optionalKey(Schema.String),
  budgets: Schema.optionalKey(WorkflowBudgets),
  budget_overridden_at: Schema.optionalKey(time)
}).annotate({ identifier: "ExecutionRun" })
export type ExecutionRun = typeof ExecutionRun.Type

/** Token and money use of one attempt (reference §6.5 `cost`); every field optional. */
export const AttemptCost = Schema.Struct({
  duration_ms: Schema.optionalKey(Schema.Number),
  input_tokens: Schema.optionalKey(Schema.Number),
  output_tokens: Schema.optionalKey(Schema.Number),
  total_tokens: Schema.optionalKey(Schema.Number),
  usd_micros: Schema.optionalKey(Schema.Number),
  model: Schema.optionalKey(Schema.String),
  provider: Schema.optionalKey(Schema.String),
  metadata: Schema.optionalKey(Schema.Unknown)
}).annotate({ identifier: "AttemptCost" })
export type AttemptCost = typeof AttemptCost.Type

/** Why an attempt failed. */
export const AttemptError = Schema.Struct({
  code: Schema.String,
  message: Schema.String
}).annotate({ identifier: "AttemptError" })
export type AttemptError = typeof AttemptError.Type

/** One attempt at a step (reference §6.5 `ExecutionAttempt`). */
export const ExecutionAttempt = Schema.Struct({
  attempt_id: Schema.String,
  step_id: Schema.String,
  run_id: Schema.String,
  /** 1-based. */
  attempt: Schema.Int,
  status: AttemptStatus,
  started_at: time,
  finished_at: nullableTime,
  result: Schema.NullOr(Schema.Unknown),
  error: Schema.NullOr(AttemptError),
  postcondition_report: Schema.NullOr(Schema.Unknown),
  artifacts: Schema.Array(Schema.Unknown),
  cost: Schema.NullOr(AttemptCost),
  policy_decision: Schema.NullOr(Schema.Unknown),
  policy_applied_override_ids: Schema.Array(Schema.String)
}).annotate({ identifier: "ExecutionAttempt" })
export type ExecutionAttempt = typeof ExecutionAttempt.Type

/** One step of a run (the reference names no contract; these are its columns). */
export const ExecutionStep = Schema.Struct({
  step_id: Schema.String,
  run_id: Schema.String,
  step_index: Schema.Int,
  status: StepStatus,
  action: WorkflowStep,
  created_at: time,
  updated_at: time,
  /** The pending approval a paused step waits for. */
  approval_id: Schema.NullOr(Schema.Int)
}).annotate({ identifier: "ExecutionStep" })
export type ExecutionStep = typeof ExecutionStep.Type

/** A step with its attempts, oldest first. */
export const ExecutionStepDetail = Schema.Struct({
  ...ExecutionStep.fields,
  attempts: Schema.Array(ExecutionAttempt)
}).annotate({ identifier: "ExecutionStepDetail" })
export type ExecutionStepDetail = typeof ExecutionStepDetail.Type

/** `GET /workflow/runs/:run_id`: the run, its steps by index, each with its attempts. */
export const WorkflowRunDetail = Schema.Struct({
  run: ExecutionRun,
  steps: Schema.Array(ExecutionStepDetail)
}).annotate({ identifier: "WorkflowRunDetail" })
export type WorkflowRunDetail = typeof WorkflowRunDetail.Type

// ---------------------------------------------------------------------------
// Listing
// ---------------------------------------------------------------------------

/** Most runs on one page, and the page size when none is asked. */
export const MAX_RUN_PAGE = 500
export const DEFAULT_RUN_PAGE = 100

/**
 * `GET /workflow/runs?status&key&limit&cursor`: newest first (`created_at`,
 * then arrival), `limit` 1..500 (default 100), `cursor` the previous page's
 * `next_cursor`.
 */
export const WorkflowRunListRequest = Schema.Struct({
  status: Schema.optionalKey(RunStatus),
  key: Schema.optionalKey(text(512)),
  limit: Schema.optionalKey(intBetween(1, MAX_RUN_PAGE)),
  cursor: Schema.optionalKey(text(512))
}).annotate({ identifier: "WorkflowRunListRequest" })
export type WorkflowRunListRequest = typeof WorkflowRunListRequest.Type

/** One page of runs, and `next_cursor` when there may be more. */
export const WorkflowRunListResponse = Schema.Struct({
  runs: Schema.Array(ExecutionRun),
  next_cursor: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "WorkflowRunListResponse" })
export type WorkflowRunListResponse = typeof WorkflowRunListResponse.Type

/** Bounds of free-form attempt fields written by executors (results, reports). */
export const AttemptJson = bounded(Schema.Unknown, LARGE_JSON)
/** Bounds of a job's trigger metadata. */
export const TriggerJson = bounded(Schema.Record(Schema.String, Schema.Unknown), SMALL_JSON)
