/**
 * {@link RunHooks} of the gateway (issue 12): what the durable run asks of
 * the rest of the gateway, called from inside the engine's activities.
 *
 * - Records: run, job, step and attempt transitions (announced after commit
 *   through {@link RunRecords}); an attempt's `cost.duration_ms` is its wall
 *   time. The engine runs an attempt's activity again after a stop: an
 *   attempt whose end is recorded is then replayed from its record, one that
 *   had only started is recorded failed `interrupted`; neither runs again.
 *   No attempt starts, and no pause is recorded, once the run is cancelled.
 * - Policy gate: the step's tool call (`executors/toolCall.ts`) judged by
 *   `PolicyBundle.evaluateToolCall` against the run's policy snapshot, for the
 *   agent named in the key (`default` otherwise); the scopes of the secret
 *   handles an Http step's headers reference are its `secret_scopes`.
 * - Budgets: spent = the sums of the attempts' costs and the time since the
 *   run started; a budget is exceeded when spent is above it.
 * - Pauses: one pending approval (kind `workflow_step`, `policy`, `budget` or
 *   `retry`, scope `{key, lane, run_id, step_index}`) and one resume token
 *   (random; only its SHA-256 is stored, with the pause's name), handed out
 *   once in `run.paused` to `operator.write` clients after commit.
 * - The end of a run frees its lane ({@link LaneSignals}).
 *
 * @module
 */
import { Clock, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { Approvals } from "../approvals/Approvals.ts"
import type { ApprovalKind } from "../approvals/schema.ts"
import { PolicyBundle } from "../policy-bundle/PolicyBundle.ts"
import { sha256Hex } from "../shared/sha256.ts"
import { isoTime } from "../shared/time.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import {
  type AttemptEnd,
  type AttemptStart,
  type Pause,
  pauseName,
  type PauseKind,
  type RunEnd,
  RunHooks
} from "./engine/RunHooks.ts"
import { RunPaused, RunPausedForReaders } from "./events.ts"
import { HttpStepContext } from "./executors/HttpStepContext.ts"
import { toolCallOf } from "./executors/toolCall.ts"
import { LaneSignals } from "./lanes.ts"
import { RunRecords, runScope } from "./RunRecords.ts"
import { keyAgentId } from "./runs/keys.ts"
import { RunsRepo } from "./runs/RunsRepo.ts"
import type { ExecutionAttempt, ExecutionRun, StepStatus } from "./runs/schema.ts"

const now = Effect.map(Clock.currentTimeMillis, isoTime)


const APPROVAL_KIND: { readonly [K in PauseKind]: ApprovalKind } = {
  confirm: "workflow_step",
  policy: "policy",
  budget: "budget",
  retry: "retry"
}

/** The approval's prompt: a `Confirm` step's own `prompt` text, else a sentence of the pause's kind. */
const promptOf = (pause: Pause, run_id: string): string =>
  pause.prompt !== undefined && pause.prompt.trim() !== "" ? pause.prompt : PROMPT[pause.kind](run_id, pause.step_index)

const PROMPT: { readonly [K in PauseKind]: (run_id: string, step_index: number) => string } = {
  confirm: (run_id, step_index) => `Confirm step ${step_index} of run ${run_id}`,
  policy: () => "Policy approval required to continue execution",
  budget: () => "Budget exceeded — continue execution?",
  retry: () => "Retry required — step is not idempotent"
}

/** `run.paused`'s reason and the run's `paused_reason`: `approval` for a Confirm step, else the pause kind. */
const pauseReason = (kind: PauseKind) => (kind === "confirm" ? "approval" : kind)

const STEP_OPEN: ReadonlyArray<StepStatus> = ["queued", "running", "paused"]

const INTERRUPTED: AttemptStart = { _tag: "interrupted" }
const CANCELLED: AttemptStart = { _tag: "cancelled" }

/**
 * The approval's context beyond the scope and `detail`: a budget pause's
 * `{budgets, spent, next_step_index}` as its own fields (issue 20 point 13);
 * a policy pause's `policy: {agent_id, policy_snapshot_id,
 * suggested_overrides}`; the others' context under their kind (`confirm:
 * {args}`, `retry: {attempt, error, max_attempts}`).
 */
const pauseContext = (pause: Pause, run: ExecutionRun): Record<string, unknown> => {
  switch (pause.kind) {
    case "budget":
      return { ...(pause.context as Record<string, unknown> | undefined) }
    case "policy":
      return {
        policy: {
          agent_id: keyAgentId(run.key),
          policy_snapshot_id: run.policy_snapshot_id,
          suggested_overrides: (pause.context as { evaluation?: { suggested_overrides?: unknown } } | undefined)?.evaluation
            ?.suggested_overrides ?? []
        }
      }
    default:
      return pause.context === undefined ? {} : { [pause.kind]: pause.context }
  }
}

/** Step and attempt ids are derived (`RunsRepo.createRun`, `attemptContext`), so hooks need no lookup. */
const stepIdOf = (run_id: string, step_index: number) => `${run_id}:${step_index}`
const attemptIdOf = (run_id: string, step_index: number, attempt: number) => `${run_id}:${step_index}:${attempt}`

const durationOf = (started_at: string | undefined, at: string): number =>
  started_at === undefined ? 0 : Math.max(0, Date.parse(at) - Date.parse(started_at))

/**
 * The gateway's {@link RunHooks}. Needs `RunsRepo`, `RunRecords`,
 * `Approvals`, `PolicyBundle`, `EventBus`, `LaneSignals`, `HttpStepContext`
 * and a `SqlClient`.
 */
export const RunRecorderLive: Layer.Layer<
  RunHooks,
  never,
  RunsRepo | RunRecords | Approvals | PolicyBundle | EventBus | LaneSignals | SqlClient.SqlClient | HttpStepContext
> = Layer.effect(
  RunHooks,
  Effect.gen(function*() {
    const repo = yield* RunsRepo
    const records = yield* RunRecords
    const approvals = yield* Approvals
    const policy = yield* PolicyBundle
    const events = yield* EventBus
    const lanes = yield* LaneSignals
    const sql = yield* SqlClient.SqlClient
    const httpSteps = yield* HttpStepContext

    const orDie = <A>(what: string) => (a: A | undefined) => (a === undefined ? Effect.die(new Error(`${what} has no record`)) : Effect.succeed(a))
    /** The run with its steps and attempts (the end of a run needs them all). */
    const detail = (run_id: string) => Effect.flatMap(repo.getRun(run_id), orDie(`run ${run_id}`))
    /** The run record alone: one statement (the hot path). */
    const runOf = (run_id: string) => Effect.flatMap(repo.getRunRecord(run_id), orDie(`run ${run_id}`))

    /** `paused_detail` of a run ended by a denied pause or a cancel (an operator's reason, when this process holds it). */
    const endDetail = (run_id: string, end: RunEnd) =>
      end.status === "denied"
        ? Effect.succeed<string | null>(`pause at step ${end.step_index} denied`)
        : Effect.map(records.cancelReason(run_id), (reason) => (reason === undefined ? "run cancelled" : reason))

    /** The writes of a run's end; call inside a transaction. */
    const finishedWrites = (run_id: string, end: RunEnd, at: string) =>
      Effect.gen(function*() {
        let run: ExecutionRun
        if (end.status === "succeeded") {
          // The run's own move returns the record (job, key, lane): no read first.
          run = (yield* records.move("run", run_id, ["running"], "succeeded", { at })) ?? (yield* runOf(run_id))
          yield* records.move("job", run.job_id, ["running"], "completed", { at })
        } else if (end.status === "failed") {
          run = yield* runOf(run_id)
          for (const step of (yield* detail(run_id)).steps) {
            if (step.step_index === end.step_index) yield* records.move("step", step.step_id, STEP_OPEN, "failed", { at })
            else if (step.status === "queued") yield* records.move("step", step.step_id, ["queued"], "skipped", { at })
          }
          yield* records.move("run", run_id, ["running", "paused"], "failed", { at, paused_detail: `step ${end.step_index}: ${end.message}` })
          yield* records.move("job", run.job_id, ["running"], "failed", { at })
        } else {
          run = yield* runOf(run_id)
          // Nothing is in flight: the engine is here, not in an attempt.
          yield* records.cancelRun(run_id, at, yield* endDetail(run_id, end), { force: true })
        }
        yield* repo.revokeTokensForRun(run_id, at)
        yield* sql.afterCommit(lanes.signal({ key: run.key, lane: run.lane }))
      })

    const finished = (run_id: string, end: RunEnd) =>
      repo.transaction(Effect.flatMap(now, (at) => finishedWrites(run_id, end, at)))

    /**
     * What an attempt's existing record says when the engine runs its
     * activity again (issue 20 point 1): an ended attempt (`succeeded`,
     * `failed`, `timed_out`) is replayed from its record, never executed
     * again; a `running` one had started and not ended (the gateway stopped
     * during it): it is recorded failed `interrupted`; a `cancelled` one
     * belongs to a cancelled run.
     */
    const replayed = (existing: ExecutionAttempt, at: string) =>
      Effect.gen(function*() {
        switch (existing.status) {
          case "succeeded":
            return { _tag: "ended", end: { ok: true, result: existing.result } } satisfies AttemptStart
          case "failed":
          case "timed_out":
            return {
              _tag: "ended",
              end: {
                ok: false,
                code: existing.error?.code ?? existing.status,
                message: existing.error?.message ?? "",
                ...(existing.result === null ? {} : { result: existing.result })
              }
            } satisfies AttemptStart
          case "cancelled":
            return CANCELLED
          case "running":
            yield* records.move("attempt", existing.attempt_id, ["running"], "failed", {
              at,
              error: { code: "interrupted", message: "the gateway stopped during this attempt; it was not run again" },
              cost: { duration_ms: durationOf(existing.started_at, at) }
            })
            return INTERRUPTED
        }
      })

    return RunHooks.of({
      gate: Effect.fn("RunHooks.gate")(function*(run_id, step_index) {
        const run = yield* runOf(run_id)
        const step = yield* Effect.flatMap(repo.getStep(stepIdOf(run_id, step_index)), orDie(`step ${step_index} of ${run_id}`))
        const call = toolCallOf(step.action)
        if (call === undefined) return { decision: "allow" as const }
        const agent_id = keyAgentId(run.key)
        const evaluation = yield* policy.evaluateToolCall({
          agent_id,
          tool_id: call.tool_id,
          tool_match_target: call.tool_match_target,
          url: call.url,
          secret_scopes: call.secret_handles === undefined ? undefined : yield* httpSteps.secretScopes(agent_id, call.secret_handles),
          policy_snapshot_id: run.policy_snapshot_id
        })
        return {
          decision: evaluation.decision,
          tool_id: call.tool_id,
          target: call.tool_match_target,
          evaluation,
          applied_override_ids: evaluation.applied_override_ids
        }
      }, Effect.orDie),

      budget: Effect.fn("RunHooks.budget")(function*(run_id, step_index) {
        const run = yield* runOf(run_id)
        const budgets = run.budgets
        if (budgets === undefined || run.budget_overridden_at !== undefined) return { exceeded: false }
        const spent = yield* repo.spending(run_id)
        const elapsed_ms = run.started_at === null ? 0 : Math.max(0, (yield* Clock.currentTimeMillis) - Date.parse(run.started_at))
        const exceeded = (budgets.max_usd_micros !== undefined && spent.usd_micros > budgets.max_usd_micros) ||
          (budgets.max_total_tokens !== undefined && spent.total_tokens > budgets.max_total_tokens) ||
          (budgets.max_duration_ms !== undefined && elapsed_ms > budgets.max_duration_ms)
        return {
          exceeded,
          context: { budgets, spent: { usd_micros: spent.usd_micros, total_tokens: spent.total_tokens, elapsed_ms }, next_step_index: step_index }
        }
      }, Effect.orDie),

      attemptStarted: Effect.fn("RunHooks.attemptStarted")((run_id, step_index, attempt, verdict) =>
        repo.transaction(Effect.gen(function*() {
          const at = yield* now
          const attempt_id = attemptIdOf(run_id, step_index, attempt)
          const existing = yield* repo.getAttempt(attempt_id)
          // The engine runs this attempt's activity again: the gateway stopped after it started.
          if (existing !== undefined) return yield* replayed(existing, at)
          const step_id = stepIdOf(run_id, step_index)
          const step = yield* records.move("step", step_id, ["queued"], "running", { at })
          // Not queued: a cancel got there first (the step and the run are cancelled); nothing may run.
          if (step === undefined && (yield* runOf(run_id)).status !== "running") return CANCELLED
          yield* records.startAttempt({
            attempt_id,
            step_id,
            run_id,
            attempt,
            started_at: at,
            policy_decision: verdict.evaluation ?? { decision: verdict.decision },
            policy_applied_override_ids: verdict.applied_override_ids
          })
          return { _tag: "fresh", started_at: at } satisfies AttemptStart
        })).pipe(Effect.orDie)),

      attemptEnded: Effect.fn("RunHooks.attemptEnded")((run_id, step_index, attempt, end: AttemptEnd, retry, options) =>
        repo.transaction(Effect.gen(function*() {
          const at = yield* now
          const step_id = stepIdOf(run_id, step_index)
          const attempt_id = attemptIdOf(run_id, step_index, attempt)
          // A fresh attempt's start is known; a replayed one's is read.
          const started_at = options?.started_at ?? (yield* repo.getAttempt(attempt_id))?.started_at
          const cost = { ...(end.cost as object | undefined), duration_ms: durationOf(started_at, at) }
          const artifacts = end.artifacts
          if (end.ok) {
            yield* records.move("attempt", attempt_id, ["running"], "succeeded", { at, result: end.result, cost, artifacts })
            yield* records.move("step", step_id, ["running"], "succeeded", { at })
          } else {
            yield* records.move("attempt", attempt_id, ["running"], end.code === "timeout" ? "timed_out" : "failed", {
              at,
              result: end.result,
              error: { code: end.code, message: end.message },
              cost,
              artifacts
            })
            yield* records.move("step", step_id, ["running"], retry ? "queued" : "failed", { at })
          }
          // The last step succeeded: the run's end commits with it (issue 22 §1).
          if (end.ok && options?.finishes === true) yield* finishedWrites(run_id, { status: "succeeded" }, at)
        })).pipe(Effect.orDie)),

      denied: Effect.fn("RunHooks.denied")((run_id, step_index, verdict) =>
        repo.transaction(Effect.gen(function*() {
          const at = yield* now
          const step_id = stepIdOf(run_id, step_index)
          const attempt_id = attemptIdOf(run_id, step_index, 1)
          if ((yield* repo.getAttempt(attempt_id)) === undefined) {
            yield* records.startAttempt({
              attempt_id,
              step_id,
              run_id,
              attempt: 1,
              started_at: at,
              policy_decision: verdict.evaluation ?? { decision: verdict.decision }
            })
          }
          yield* records.move("attempt", attempt_id, ["running"], "failed", {
            at,
            error: { code: "policy_denied", message: `policy denied ${verdict.tool_id ?? "the step"}${verdict.target ? ` (${verdict.target})` : ""}` }
          })
          yield* records.move("step", step_id, ["queued"], "failed", { at })
        })).pipe(Effect.orDie)),

      stepDone: Effect.fn("RunHooks.stepDone")(function*(run_id, step_index) {
        const at = yield* now
        yield* records.move("step", stepIdOf(run_id, step_index), ["queued"], "succeeded", { at })
      }, Effect.orDie),

      paused: Effect.fn("RunHooks.paused")((run_id, pause: Pause) =>
        repo.transaction(Effect.gen(function*() {
          const at = yield* now
          // The run first: a run no longer running (a cancel got there first) gets no approval and no token.
          const run = yield* records.move("run", run_id, ["running"], "paused", {
            at,
            paused_reason: pauseReason(pause.kind),
            paused_detail: pause.detail
          })
          if (run === undefined) return
          const scope = { key: run.key, lane: run.lane, run_id, step_index: pause.step_index }
          const approval = yield* approvals.create({
            kind: APPROVAL_KIND[pause.kind],
            plan_id: run.plan_id,
            step_index: pause.step_index,
            prompt: promptOf(pause, run_id),
            context: { ...scope, detail: pause.detail, ...pauseContext(pause, run) },
            scope
          })
          const token = randomBytes(32).toString("base64url")
          yield* repo.issueToken({
            digest: sha256Hex(token),
            run_id,
            step_index: pause.step_index,
            approval_id: approval.id,
            pause_name: pauseName(pause),
            created_at: at,
            expires_at: approval.expires_at
          })
          yield* records.move("step", stepIdOf(run_id, pause.step_index), ["queued"], "paused", { at, approval_id: approval.id })
          const payload = { run_id, step_index: pause.step_index, reason: pauseReason(pause.kind), approval_id: approval.id }
          yield* sql.afterCommit(Effect.gen(function*() {
            yield* events.publish(RunPaused, { ...payload, resume_token: token }, runScope(run_id))
            yield* events.publish(RunPausedForReaders, payload, runScope(run_id))
          }))
        })).pipe(Effect.orDie)),

      resumed: Effect.fn("RunHooks.resumed")((run_id, pause) =>
        repo.transaction(Effect.gen(function*() {
          const at = yield* now
          yield* records.move("step", stepIdOf(run_id, pause.step_index), ["paused"], "queued", { at })
          yield* records.move("run", run_id, ["paused"], "running", {
            at,
            ...(pause.kind === "budget" ? { budget_overridden_at: at } : {})
          })
        })).pipe(Effect.orDie)),

      finished: Effect.fn("RunHooks.finished")((run_id, end) =>
        finished(run_id, end).pipe(
          // A cancel the engine applied (after a crash, Workflow.cancel may not have got this far): its pending
          // approvals go too (after the commit: Approvals announces its own changes).
          Effect.andThen(
            end.status === "cancelled"
              ? Effect.flatMap(endDetail(run_id, end), (detail) => approvals.cancelForRun(run_id, detail ?? "run cancelled"))
              : Effect.void
          ),
          Effect.orDie
        ))
    })
  })
)
