/**
 * The workflow service (issue 12): what the HTTP and WebSocket handlers call.
 * It validates nothing itself (requests arrive decoded with the schemas of
 * `runs/schema.ts`), writes the run records (`runs/RunsRepo.ts`), drives the
 * durable engine (`engine/WorkflowRuns.ts`) and keeps the two in step through
 * the engine's {@link RunHooks} (called from activities, see
 * `engine/RunHooks.ts`).
 *
 * Pauses: a `Confirm` step creates one pending approval (kind
 * `workflow_step`, scope `{key, lane, run_id, step_index}`) and one resume
 * token (random; only its SHA-256 digest is stored). The token is handed out
 * once, in the `run.paused` event (operator.write), after the pause is
 * committed. The run continues when the approval leaves `pending`: approved
 * (by an operator, or by `resume(token)`, which approves it with
 * `resolved_by {principal: "resume_token"}`) continues it, denied cancels it.
 * Whichever comes first wins; the token is then revoked.
 *
 * Not in this slice (see docs/workflow-engine-notes.md): policy gates,
 * budgets, retries, lane queueing (a run starts at once; its record stays
 * `queued` while another run holds its lane) and the `run.*` / `step.*`
 * events other than `run.paused`.
 *
 * @module
 */
import { Clock, Context, Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { SqlClient } from "effect/sql"
import { join } from "node:path"
import { GatewayConfig } from "../../layers/config.ts"
import type { SqlError } from "effect/sql/SqlError"
import { createHash, randomBytes, randomUUID } from "node:crypto"
import { Approvals } from "../approvals/Approvals.ts"
import type { Approval, ApprovalResolvedBy } from "../approvals/schema.ts"
import type { Principal } from "../auth/principal.ts"
import { InvalidRequest, NotFound } from "../shared/errors.ts"
import { NodeDispatch } from "../nodes/NodeDispatch.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { makeWorkflowEngineLayer } from "./engine/WorkflowEngineLive.ts"
import { StepExecutorLive } from "./executors/StepExecutorLive.ts"
import { type RunEnd, RunHooks } from "./engine/RunHooks.ts"
import { WorkflowRuns, WorkflowRunsLive } from "./engine/WorkflowRuns.ts"
import { RunPaused } from "./events.ts"
import { type RunListQuery, RunsRepo } from "./runs/RunsRepo.ts"
import type {
  StepStatus,
  WorkflowCancelResponse,
  WorkflowResumeResponse,
  WorkflowRunDetail,
  WorkflowRunListResponse,
  WorkflowRunRequest,
  WorkflowRunResponse
} from "./runs/schema.ts"
import { isoTime as iso } from "../shared/time.ts"

const now = Effect.map(Clock.currentTimeMillis, iso)

/** The stored form of a resume token: its SHA-256, hex. */
export const tokenDigest = (token: string): string => createHash("sha256").update(token).digest("hex")

/** `resolved_by` of an approval approved by presenting its resume token. */
export const RESUME_TOKEN_RESOLVER: ApprovalResolvedBy = { kind: "system", principal: "resume_token" }

const runScope = (run_id: string) => ({ kind: "run", run_id })

/** The workflow service. Storage failures are defects. */
export class Workflow extends Context.Service<Workflow, {
  /** Records the job, the run and its steps (queued), then starts the run. */
  readonly run: (request: WorkflowRunRequest, principal?: Principal | undefined) => Effect.Effect<WorkflowRunResponse>
  /** Uses a resume token (once): approves the pause's approval, which continues the run. Unknown, used or revoked: `NotFound`. */
  readonly resume: (token: string) => Effect.Effect<WorkflowResumeResponse, NotFound>
  /** Cancels a run that is not finished (`cancelled: false` when it is); unknown: `NotFound`. */
  readonly cancel: (run_id: string, reason?: string | undefined) => Effect.Effect<WorkflowCancelResponse, NotFound>
  /** The run with its steps and attempts; unknown: `NotFound`. */
  readonly get: (run_id: string) => Effect.Effect<WorkflowRunDetail, NotFound>
  /** One page of runs, newest first; a cursor this gateway did not issue: `InvalidRequest`. */
  readonly list: (query: RunListQuery) => Effect.Effect<WorkflowRunListResponse, InvalidRequest>
}>()("svc-gateway/workflow/Workflow") {}

const STEP_OPEN: ReadonlyArray<StepStatus> = ["queued", "running", "paused"]

/**
 * {@link RunHooks} writing the run records: run queued → running at start,
 * steps and attempts as they run, paused (with its approval and resume token)
 * at a `Confirm` step, then succeeded, failed or cancelled (denied).
 * Needs `RunsRepo`, `Approvals`, `EventBus` and a `SqlClient`.
 */
export const RunRecorderLive: Layer.Layer<RunHooks, never, RunsRepo | Approvals | EventBus | SqlClient.SqlClient> = Layer
  .effect(
    RunHooks,
    Effect.gen(function*() {
      const repo = yield* RunsRepo
      const approvals = yield* Approvals
      const events = yield* EventBus
      const sql = yield* SqlClient.SqlClient

      const detail = (run_id: string) =>
        Effect.flatMap(repo.getRun(run_id), (d) => d === undefined ? Effect.die(new Error(`run ${run_id} has no record`)) : Effect.succeed(d))
      const stepOf = (run_id: string, step_index: number) =>
        Effect.flatMap(detail(run_id), (d) => {
          const step = d.steps.find((s) => s.step_index === step_index)
          return step === undefined ? Effect.die(new Error(`run ${run_id} has no step ${step_index}`)) : Effect.succeed({ run: d.run, step })
        })

      /** Closes the steps still open: `to` (skipped after a failure, cancelled after a denial). */
      const closeOpenSteps = (run_id: string, to: "skipped" | "cancelled", at: string) =>
        Effect.flatMap(detail(run_id), (d) =>
          Effect.forEach(d.steps, (step) => {
            const from: ReadonlyArray<StepStatus> = to === "skipped" ? ["queued"] : STEP_OPEN
            return from.includes(step.status) ? Effect.asVoid(repo.transition("step", step.step_id, from, to, { at })) : Effect.void
          }, { discard: true }))

      const finished = (run_id: string, end: RunEnd): Effect.Effect<void, SqlError> =>
        repo.transaction(Effect.gen(function*() {
          const at = yield* now
          const { run } = yield* detail(run_id)
          if (end.status === "succeeded") {
            yield* repo.transition("run", run_id, ["running"], "succeeded", { at })
            yield* repo.transition("job", run.job_id, ["running"], "completed", { at })
          } else if (end.status === "failed") {
            yield* closeOpenSteps(run_id, "skipped", at)
            yield* repo.transition("run", run_id, ["running"], "failed", { at })
            yield* repo.transition("job", run.job_id, ["running"], "failed", { at })
          } else {
            yield* closeOpenSteps(run_id, "cancelled", at)
            yield* repo.transition("run", run_id, ["paused", "running", "queued"], "cancelled", { at })
            yield* repo.transition("job", run.job_id, ["queued", "running"], "cancelled", { at })
            yield* repo.revokeTokensForRun(run_id, at)
          }
        }))

      return RunHooks.of({
        started: (run_id) =>
          repo.transaction(Effect.gen(function*() {
            const at = yield* now
            const run = yield* repo.transition("run", run_id, ["queued"], "running", { at })
            if (run !== undefined) yield* repo.transition("job", run.job_id, ["queued"], "running", { at })
          })).pipe(Effect.orDie),
        stepStarted: (run_id, step_index, attempt) =>
          Effect.gen(function*() {
            const at = yield* now
            const { step } = yield* stepOf(run_id, step_index)
            yield* repo.transition("step", step.step_id, ["queued"], "running", { at })
            // Again after a crash in the middle of the attempt: the attempt row exists already.
            yield* repo.startAttempt({ attempt_id: `${run_id}:${step_index}:${attempt}`, step_id: step.step_id, run_id, attempt, started_at: at })
              .pipe(Effect.ignore)
          }).pipe(Effect.orDie),
        stepEnded: (run_id, step_index, attempt, outcome) =>
          repo.transaction(Effect.gen(function*() {
            const at = yield* now
            const { step } = yield* stepOf(run_id, step_index)
            const attempt_id = `${run_id}:${step_index}:${attempt}`
            if (outcome.ok) {
              yield* repo.transition("attempt", attempt_id, ["running"], "succeeded", { at, result: outcome.result })
              yield* repo.transition("step", step.step_id, ["running"], "succeeded", { at })
            } else {
              yield* repo.transition("attempt", attempt_id, ["running"], outcome.code === "timeout" ? "timed_out" : "failed", {
                at,
                result: outcome.result,
                error: { code: outcome.code, message: outcome.message }
              })
              yield* repo.transition("step", step.step_id, ["running"], "failed", { at })
            }
          })).pipe(Effect.orDie),
        paused: (run_id, step_index) =>
          repo.transaction(Effect.gen(function*() {
            const at = yield* now
            const { run, step } = yield* stepOf(run_id, step_index)
            const approval = yield* approvals.create({
              kind: "workflow_step",
              plan_id: run.plan_id,
              step_index,
              prompt: `Confirm step ${step_index} of run ${run_id}`,
              context: { run_id, step_index, args: step.action.args },
              scope: { key: run.key, lane: run.lane, run_id, step_index }
            })
            const token = randomBytes(32).toString("base64url")
            yield* repo.issueToken({ digest: tokenDigest(token), run_id, step_index, approval_id: approval.id, created_at: at, expires_at: approval.expires_at })
            yield* repo.transition("step", step.step_id, ["queued"], "paused", { at, approval_id: approval.id })
            yield* repo.transition("run", run_id, ["running"], "paused", { at, paused_reason: "approval", paused_detail: `confirm step ${step_index}` })
            yield* sql.afterCommit(Effect.asVoid(events.publish(RunPaused, {
              run_id,
              step_index,
              reason: "approval",
              approval_id: approval.id,
              resume_token: token
            }, runScope(run_id))))
          })).pipe(Effect.orDie),
        confirmed: (run_id, step_index) =>
          repo.transaction(Effect.gen(function*() {
            const at = yield* now
            const { step } = yield* stepOf(run_id, step_index)
            // The decision is the Confirm step's outcome (paused → queued → succeeded: states.ts has no paused → succeeded).
            yield* repo.transition("step", step.step_id, ["paused"], "queued", { at })
            yield* repo.transition("step", step.step_id, ["queued"], "succeeded", { at })
            yield* repo.transition("run", run_id, ["paused"], "queued", { at })
            yield* repo.transition("run", run_id, ["queued"], "running", { at })
          })).pipe(Effect.orDie),
        finished: (run_id, end) => finished(run_id, end).pipe(Effect.orDie)
      })
    })
  )

/** The service over `WorkflowRuns` (with {@link RunRecorderLive}), `RunsRepo`, `Approvals`; registers its approvals listener. */
export const WorkflowNoDeps: Layer.Layer<Workflow, never, WorkflowRuns | RunsRepo | Approvals> = Layer.effect(
  Workflow,
  Effect.gen(function*() {
    const runs = yield* WorkflowRuns
    const repo = yield* RunsRepo
    const approvals = yield* Approvals

    // A workflow_step approval of a run left pending: approved continues the run, denied ends it (cancelled);
    // expired and cancelled approvals leave it paused (cancel ends it). The run's tokens are used up either way.
    yield* approvals.onResolved((approval: Approval) =>
      Effect.gen(function*() {
        const run_id = approval.scope?.run_id
        const step_index = approval.scope?.step_index
        if (approval.kind !== "workflow_step" || run_id === undefined || step_index === undefined) return
        if (approval.status !== "approved" && approval.status !== "denied") return
        yield* repo.revokeTokensForApproval(approval.id, yield* now)
        yield* runs.resume(run_id, step_index, {
          approved: approval.status === "approved",
          resolved_by: `approval:${approval.id}`
        })
      }).pipe(Effect.orDie)
    )

    const run = (request: WorkflowRunRequest) =>
      Effect.gen(function*() {
        const created = yield* repo.createRun({
          job_id: `job-${randomUUID()}`,
          run_id: `run-${randomUUID()}`,
          key: request.key,
          lane: request.lane,
          plan_id: request.plan_id ?? `plan-${randomUUID()}`,
          request_id: request.request_id ?? `req-${randomUUID()}`,
          steps: request.steps,
          budgets: request.budgets,
          created_at: yield* now
        })
        yield* runs.start(created.run.run_id, request.steps)
        return {
          status: "ok" as const,
          job_id: created.job.job_id,
          run_id: created.run.run_id,
          plan_id: created.run.plan_id,
          request_id: created.run.request_id,
          key: created.run.key,
          lane: created.run.lane,
          steps_count: created.steps.length
        }
      }).pipe(Effect.orDie)

    const resume = (token: string) =>
      Effect.gen(function*() {
        const used = yield* repo.consumeToken(tokenDigest(token), yield* now).pipe(Effect.orDie)
        if (used === undefined) return yield* new NotFound({ message: "resume token not found (unknown, used or revoked)" })
        if (used.approval_id === null) {
          yield* runs.resume(used.run_id, used.step_index, { approved: true, resolved_by: "resume_token" })
        } else {
          // The approvals listener continues the run (the same path as an operator's approval).
          yield* approvals.respond(used.approval_id, { decision: "approved", reason: "resume token" }, RESUME_TOKEN_RESOLVER)
            .pipe(Effect.orDie)
        }
        return { status: "ok" as const, run_id: used.run_id }
      })

    const cancel = (run_id: string, reason?: string) =>
      Effect.gen(function*() {
        const current = yield* repo.getRun(run_id).pipe(Effect.orDie)
        if (current === undefined) return yield* new NotFound({ message: `run ${run_id} not found` })
        if (!["queued", "running", "paused"].includes(current.run.status)) {
          return { status: "ok" as const, run_id, cancelled: false }
        }
        yield* runs.cancel(run_id)
        const at = yield* now
        const moved = yield* repo.transaction(Effect.gen(function*() {
          const run = yield* repo.transition("run", run_id, ["queued", "running", "paused"], "cancelled", { at })
          if (run === undefined) return false
          yield* repo.transition("job", run.job_id, ["queued", "running"], "cancelled", { at })
          for (const step of current.steps) {
            for (const attempt of step.attempts) {
              if (attempt.status === "running") yield* repo.transition("attempt", attempt.attempt_id, ["running"], "cancelled", { at })
            }
            if (STEP_OPEN.includes(step.status)) yield* repo.transition("step", step.step_id, STEP_OPEN, "cancelled", { at })
          }
          yield* repo.revokeTokensForRun(run_id, at)
          return true
        })).pipe(Effect.orDie)
        yield* approvals.cancelForRun(run_id, reason ?? "run cancelled").pipe(Effect.orDie)
        return { status: "ok" as const, run_id, cancelled: moved }
      })

    return Workflow.of({
      run,
      resume,
      cancel,
      get: (run_id) =>
        Effect.flatMap(Effect.orDie(repo.getRun(run_id)), (d) =>
          d === undefined ? Effect.fail(new NotFound({ message: `run ${run_id} not found` })) : Effect.succeed(d)),
      list: (query) =>
        repo.listRuns(query).pipe(
          Effect.catchTag("InvalidRunCursor", (e) => Effect.fail(new InvalidRequest({ message: e.message }))),
          Effect.catchTag("SqlError", Effect.die)
        )
    })
  })
)

/**
 * The executors the settings ask for: `Http` over `FetchHttpClient`, `CLI`
 * when `SVC_CLI_ENABLED=1` (working directories under `$SVC_HOME/workspaces`),
 * device kinds through `NodeDispatch`.
 */
const ExecutorsFromSettings = Layer.unwrap(Effect.map(GatewayConfig, (settings) =>
  StepExecutorLive({ cliEnabled: settings.cliEnabled, workspacesRoot: join(settings.home, "workspaces") }))).pipe(
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(NodeDispatch.layer)
  )

/**
 * Shards of the single runner. The cluster default (300) suits many runners;
 * one process owns every shard, and each shard costs lock rows refreshed and
 * mailboxes polled while idle, so a few are enough. Changing it re-homes
 * stored runs' shards, so it is fixed here, not a setting.
 */
const SINGLE_RUNNER_SHARDS = 8

/**
 * The workflow subsystem, wired: the durable engine over the gateway's
 * `SqlClient` (a single runner; its `cluster_*` tables live next to ours),
 * the executors, the run records and the approvals service. Shard locks are
 * table locks in the gateway's own database/schema (`shardLockDisableAdvisory`):
 * PostgreSQL advisory locks are database-wide, so two gateways on two schemas
 * of one database would otherwise contend for the same shards
 * (docs/workflow-engine-notes.md). Needs `GatewayConfig` and a `SqlClient`.
 */
export const WorkflowLive = WorkflowNoDeps.pipe(
  Layer.provide(WorkflowRunsLive.pipe(
    Layer.provide(RunRecorderLive),
    Layer.provide(makeWorkflowEngineLayer({ shardLockDisableAdvisory: true, shardsPerGroup: SINGLE_RUNNER_SHARDS })),
    Layer.provide(ExecutorsFromSettings)
  )),
  Layer.provide(RunsRepo.layer),
  Layer.provide(Approvals.layer),
  Layer.provide(EventBus.layer)
)
