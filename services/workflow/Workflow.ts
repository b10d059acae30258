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
 * Cancels: the engine is interrupted first (it starts nothing new), an
 * attempt in flight is waited for and records its real outcome, then the
 * records are cancelled — or succeeded, when every step had succeeded
 * (docs/workflow-runs.md "Cancel").
 *
 * @module
 */
import { Clock, Context, Effect, Layer } from "effect"
import { NodeDns } from "@effect/platform-node"
import { randomUUID } from "node:crypto"
import { GatewayConfig } from "../../layers/config.ts"
import { Approvals } from "../approvals/Approvals.ts"
import { ApprovalResolved } from "../approvals/domainEvents.ts"
import type { Approval, ApprovalResolvedBy } from "../approvals/schema.ts"
import type { Principal } from "../auth/principal.ts"
import { SecretProviderFromSettings } from "../../layers/secrets/index.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { NodeDispatch } from "../nodes/NodeDispatch.ts"
import { PolicyBundle } from "../policy-bundle/PolicyBundle.ts"
import { InvalidRequest, NotFound } from "../shared/errors.ts"
import { SecretResolver } from "../secrets/SecretStore.ts"
import { SecretsRepo } from "../secrets/SecretsRepo.ts"
import { sha256Hex } from "../shared/sha256.ts"
import { isoTime } from "../shared/time.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { BackplaneMode } from "../backplane/mode.ts"
import { WORKFLOW_SHARDS } from "./engine/ClusterRunner.ts"
import { makeClusterWorkflowEngineLayer, makeWorkflowEngineLayer } from "./engine/WorkflowEngineLive.ts"
import { WorkflowRuns } from "./engine/WorkflowRuns.ts"
import { inBackground } from "./engineInBackground.ts"
import { concurrencyLimited } from "./executors/concurrency.ts"
import { CliSandbox } from "./executors/CliSandbox.ts"
import { HttpTraceTargets } from "./executors/HttpExecutor.ts"
import { redactStep } from "./executors/httpRedaction.ts"
import { HttpStepContext } from "./executors/HttpStepContext.ts"
import { StepExecutorLive } from "./executors/StepExecutorLive.ts"
import { AttemptArtifactsStored } from "./executors/AttemptArtifacts.ts"
import { Artifacts } from "../artifacts/Artifacts.ts"
import type { StepExecutor } from "./StepExecutor.ts"
import { EXEC_TOOL_ID, HTTP_TOOL_ID } from "./executors/toolCall.ts"
import { StepInputsRepo } from "./inputs/StepInputsRepo.ts"
import { LaneScheduler, LaneSignals } from "./lanes.ts"
import { RunRecorderLive } from "./RunRecorder.ts"
import { RunEnded } from "./domainEvents.ts"
import { RunRecords } from "./RunRecords.ts"
import { type RunListQuery, RunsRepo } from "./runs/RunsRepo.ts"
import type {
  RunStatus,
  TriggerKind,
  WorkflowCancelResponse,
  WorkflowResumeResponse,
  WorkflowRunDetail,
  WorkflowRunListResponse,
  WorkflowRunRequest,
  WorkflowRunResponse
} from "./runs/schema.ts"

const now = Effect.map(Clock.currentTimeMillis, isoTime)

/** `resolved_by` of an approval approved by presenting its resume token. */
export const RESUME_TOKEN_RESOLVER: ApprovalResolvedBy = { kind: "system", principal: "resume_token" }

/** The workflow service. Storage failures are defects. */
export class Workflow extends Context.Service<Workflow, {
  /**
   * Records the job, the run (pinned to the effective policy snapshot) and its
   * steps, queued; then admits its lane. `options.trigger_kind` says what
   * started it (`api` when absent) and `options.trigger` adds metadata to the
   * job's trigger (`plan_id` and `request_id` are always merged in).
   */
  readonly run: (
    request: WorkflowRunRequest,
    principal?: Principal | undefined,
    options?: RunOptions | undefined
  ) => Effect.Effect<WorkflowRunResponse>
  /** Uses a resume token (once): approves the pause's approval, which continues the run. Unknown, used or revoked: `NotFound`. */
  readonly resume: (token: string) => Effect.Effect<WorkflowResumeResponse, NotFound>
  /**
   * Cancels a run that is not finished (docs/workflow-runs.md "Cancel"):
   * nothing starts after it; an attempt in flight is waited for (at most its
   * `timeout_ms`) and records its real outcome. `cancelled: false` when the
   * run succeeded or failed — also when every step had succeeded by the time
   * the cancel took effect (the run is then `succeeded`); `true` when it is
   * (now or already) cancelled; unknown: `NotFound`.
   */
  readonly cancel: (run_id: string, reason?: string | undefined) => Effect.Effect<WorkflowCancelResponse, NotFound>
  /** The run with its steps and attempts; unknown: `NotFound`. */
  readonly get: (run_id: string) => Effect.Effect<WorkflowRunDetail, NotFound>
  /** One page of runs, newest first; a cursor this gateway did not issue: `InvalidRequest`. */
  readonly list: (query: RunListQuery) => Effect.Effect<WorkflowRunListResponse, InvalidRequest>
}>()("svc-gateway/workflow/Workflow") {}

/** What started a run, for {@link Workflow} `run`. */
export interface RunOptions {
  readonly trigger_kind?: TriggerKind | undefined
  readonly trigger?: Readonly<Record<string, unknown>> | undefined
}

/** How soon a cancel looks again whether the attempt in flight has ended: 10 ms, doubling up to 250 ms. */
const CANCEL_POLL_FIRST_MS = 10
const CANCEL_POLL_MAX_MS = 250

/** A run that may still be cancelled. */
const isOpen = (status: RunStatus): boolean => status === "queued" || status === "running" || status === "paused"

/**
 * Logs at start when the effective bundle pauses every Http and CLI step
 * for approval (the built-in bundle does), so an operator whose runs all
 * pause knows why (docs/workflow.md "Allowing a host").
 */
const warnWhenEveryStepEscalates = Effect.gen(function*() {
  const policy = yield* PolicyBundle
  const http = yield* policy.evaluateToolCall({
    agent_id: "default",
    tool_id: HTTP_TOOL_ID,
    tool_match_target: "https://example.com/",
    url: "https://example.com/"
  })
  const exec = yield* policy.evaluateToolCall({ agent_id: "default", tool_id: EXEC_TOOL_ID, tool_match_target: "true" })
  if (http.decision === "require_approval" && exec.decision === "require_approval") {
    yield* Effect.logWarning(
      "workflow: the effective policy bundle escalates every step (Http and CLI steps pause for an approval); allow tools and hosts in $SVC_HOME/policy.yml (docs/workflow.md)"
    ).pipe(Effect.annotateLogs({ http: http.decision, exec: exec.decision }))
  }
})

/**
 * The service over `WorkflowRuns`, `RunsRepo`, `RunRecords`, `LaneScheduler`,
 * `LaneSignals`, `Approvals`, `PolicyBundle` and `DomainEvents`; reacts to
 * `ApprovalResolved` (after commit, before the resolver returns): a run's
 * pause approved continues the run, denied ends it (cancelled; a denied
 * retry fails it); expired or cancelled approvals leave it paused (cancel
 * ends it). The pause's tokens are used up either way. Subscribes to
 * `RunEnded` to drop a finished run's kept step inputs.
 */
export const WorkflowNoDeps: Layer.Layer<
  Workflow,
  never,
  WorkflowRuns | RunsRepo | StepInputsRepo | RunRecords | LaneScheduler | LaneSignals | Approvals | PolicyBundle | DomainEvents
> = Layer.effect(
  Workflow,
  Effect.gen(function*() {
    const runs = yield* WorkflowRuns
    const repo = yield* RunsRepo
    const records = yield* RunRecords
    const scheduler = yield* LaneScheduler
    const lanes = yield* LaneSignals
    const approvals = yield* Approvals
    const policy = yield* PolicyBundle
    const domainEvents = yield* DomainEvents
    const inputs = yield* StepInputsRepo

    yield* warnWhenEveryStepEscalates

    // The real actions of redacted steps are needed only while their run may still execute.
    yield* Effect.orDie(inputs.deleteFinished)
    yield* domainEvents.subscribe(RunEnded, (ended) => Effect.orDie(inputs.deleteRun(ended.run_id)))

    yield* domainEvents.afterCommit(ApprovalResolved, (approval: Approval) =>
      Effect.gen(function*() {
        if (approval.scope?.run_id === undefined) return
        if (approval.status !== "approved" && approval.status !== "denied") return
        const token = yield* repo.tokenOfApproval(approval.id)
        if (token === undefined) return
        yield* repo.revokeTokensForApproval(approval.id, yield* now)
        yield* runs.resume(token.run_id, token.pause_name, {
          approved: approval.status === "approved",
          resolved_by: `approval:${approval.id}`
        })
      }).pipe(Effect.orDie)
    )

    const run = Effect.fn("Workflow.run")(function*(request: WorkflowRunRequest, _principal?: Principal, options?: RunOptions) {
      const effective = yield* policy.effective
      // The run and its `run.queued` audit event commit together.
      const createdAt = yield* now
      const run_id = `run-${randomUUID()}`
      // Records hold the redacted steps; the real ones of redacted steps are kept apart until the run ends.
      const stored = request.steps.map(redactStep)
      const real = request.steps.flatMap((action, step_index) => (stored[step_index] === action ? [] : [{ step_index, action }]))
      const created = yield* repo.transaction(Effect.tap(repo.createRun({
        job_id: `job-${randomUUID()}`,
        run_id,
        key: request.key,
        lane: request.lane,
        plan_id: request.plan_id ?? `plan-${randomUUID()}`,
        request_id: request.request_id ?? `req-${randomUUID()}`,
        steps: stored,
        budgets: request.budgets,
        policy_snapshot_id: effective.policy_snapshot_id,
        trigger_kind: options?.trigger_kind,
        trigger: options?.trigger,
        created_at: createdAt
      }), (created) => Effect.andThen(inputs.save(run_id, real), records.queued(created.run))))
      // Without redacted steps, the run as recorded is the engine's payload: admitted, it starts without a read.
      const payload = real.length > 0 ? undefined : {
        run_id,
        steps: created.steps.map((step) => step.action),
        ...(created.run.budgets === undefined ? {} : { budgets: created.run.budgets })
      }
      yield* scheduler.admit({ key: created.run.key, lane: created.run.lane }, payload)
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
    }, Effect.orDie)

    const resume = Effect.fn("Workflow.resume")(function*(token: string) {
      const used = yield* repo.consumeToken(sha256Hex(token), yield* now).pipe(Effect.orDie)
      if (used === undefined) return yield* new NotFound({ message: "resume token not found (unknown, used or revoked)" })
      if (used.approval_id === null) {
        yield* runs.resume(used.run_id, used.pause_name, { approved: true, resolved_by: "resume_token" })
      } else {
        // The ApprovalResolved reaction continues the run (the same path as an operator's approval).
        yield* approvals.respond(used.approval_id, { decision: "approved", reason: "resume token" }, RESUME_TOKEN_RESOLVER)
          .pipe(Effect.orDie)
      }
      return { status: "ok" as const, run_id: used.run_id }
    })

    /**
     * Writes the cancel of an open run (`RunRecords.cancelRun`), waiting
     * while one of its attempts is in flight: that attempt ends as it happens
     * and records its real outcome; the engine, interrupted, starts nothing
     * after it. Past the attempt's deadline (its `timeout_ms`, plus a grace
     * period) the cancel is written anyway.
     */
    const writeCancel = (run_id: string, detail: string | null) =>
      Effect.gen(function*() {
        let until: number | undefined
        for (let polls = 0;; polls++) {
          const at = yield* now
          const force = until !== undefined && Date.parse(at) > until
          const outcome = yield* repo.transaction(records.cancelRun(run_id, at, detail, { force })).pipe(
            // An attempt started while the cancel was written (PostgreSQL): rolled back, waited for.
            Effect.catchTag("StepStartedDuringCancel", () => Effect.succeed(undefined)),
            Effect.orDie
          )
          if (outcome !== undefined && outcome._tag !== "in_flight") return outcome
          if (outcome !== undefined) until = outcome.until
          // Once more: an execution the first interrupt did not find (the run was admitted meanwhile) stops too.
          if (polls === 0) yield* runs.cancel(run_id)
          yield* Effect.sleep(Math.min(CANCEL_POLL_MAX_MS, CANCEL_POLL_FIRST_MS * 2 ** polls))
        }
      })

    const cancel = Effect.fn("Workflow.cancel")(function*(run_id: string, reason?: string) {
      const current = yield* repo.getRunRecord(run_id).pipe(Effect.orDie)
      if (current === undefined) return yield* new NotFound({ message: `run ${run_id} not found` })
      if (current.status === "cancelled") {
        yield* repo.revokeTokensForRun(run_id, yield* now).pipe(Effect.orDie)
        return { status: "ok" as const, run_id, cancelled: true }
      }
      if (!isOpen(current.status)) return { status: "ok" as const, run_id, cancelled: false }
      // The engine first: it starts nothing new (durably: also after a restart, see RunWorkflow's `cancelled`).
      // Should it write the cancel before this does (it applies it once the attempt in flight ended), with this reason.
      const outcome = yield* Effect.andThen(runs.cancel(run_id), writeCancel(run_id, reason ?? null)).pipe(
        records.withCancelReason(run_id, reason ?? null)
      )
      // Not open any more: a racing writer ended it first (the engine applying this cancel, a denied pause).
      const cancelled = outcome._tag === "cancelled" ||
        (outcome._tag === "not_open" && (yield* repo.getRunRecord(run_id))?.status === "cancelled")
      if (cancelled) yield* approvals.cancelForRun(run_id, reason ?? "run cancelled").pipe(Effect.orDie)
      yield* lanes.signal({ key: current.key, lane: current.lane })
      return { status: "ok" as const, run_id, cancelled }
    })

    return Workflow.of({
      run,
      resume,
      cancel,
      get: Effect.fn("Workflow.get")((run_id) =>
        Effect.flatMap(repo.getRun(run_id), (d) =>
          d === undefined ? Effect.fail(new NotFound({ message: `run ${run_id} not found` })) : Effect.succeed(d))),
      list: Effect.fn("Workflow.list")((query) =>
        repo.listRuns(query).pipe(
          Effect.catchTag("InvalidRunCursor", (e) => Effect.fail(new InvalidRequest({ message: e.message })))
        ))
    })
  })
)

/**
 * The executors the settings ask for: `Http` over Node's `http`/`https`
 * (the system resolver, `NodeDns`; trace headers only to
 * `SVC_TRACE_PROPAGATION_TARGETS`), `CLI` when `SVC_CLI_ENABLED=1` (in the
 * sandbox `CliSandbox.layer` chose at start), device kinds through
 * `NodeDispatch`; at most `SVC_EXEC_CONCURRENCY` attempts at once; what
 * they produce is stored in the artifacts subsystem (`AttemptArtifactsStored`).
 * Needs `HttpStepContext`.
 */
const ExecutorsFromSettings = Layer.unwrap(Effect.map(GatewayConfig, (settings) =>
  concurrencyLimited(StepExecutorLive, settings.execConcurrency).pipe(
    Layer.provide(Layer.succeed(HttpTraceTargets, settings.tracePropagationTargets))
  ))).pipe(
    Layer.provide(NodeDns.layer),
    Layer.provide(NodeDispatch.layer),
    Layer.provide(CliSandbox.layer),
    Layer.provide(AttemptArtifactsStored.pipe(Layer.provide(Artifacts.layer), Layer.provide(RunsRepo.layer)))
  )

/**
 * `HttpStepContext` of the gateway: the run records, the policy bundle and
 * the secret store (its resolver over the provider the settings choose;
 * these layers are the secrets subsystem's, built once per graph).
 */
const HttpStepContextLive = HttpStepContext.layerNoDeps.pipe(
  Layer.provide(SecretResolver.layerNoDeps),
  Layer.provide(SecretsRepo.layer),
  Layer.provide(SecretProviderFromSettings),
  Layer.provide(RunsRepo.layer),
  Layer.provide(PolicyBundle.layer)
)

/**
 * The durable engine the configuration asks for: one runner of the cluster
 * (`BackplaneMode.runner`, set with `SVC_CLUSTER=1`: engine/ClusterRunner.ts)
 * or the single runner, both with {@link WORKFLOW_SHARDS} shards and table
 * shard locks.
 */
const EngineFromMode = Layer.unwrap(Effect.gen(function*() {
  const mode = yield* BackplaneMode
  return mode.cluster && mode.runner !== undefined
    ? makeClusterWorkflowEngineLayer({ role: mode.role, ...mode.runner })
    : makeWorkflowEngineLayer({ shardLockDisableAdvisory: true, shardsPerGroup: WORKFLOW_SHARDS })
}))

/**
 * The workflow subsystem over given executors: the durable engine over the
 * `SqlClient` in the environment (a single runner, or one runner of the
 * cluster with `SVC_CLUSTER=1`: `EngineFromMode`; its `cluster_*` tables
 * live next to ours), the run records, lanes and the service. Shard locks are
 * table locks in the gateway's own database/schema (`shardLockDisableAdvisory`):
 * PostgreSQL advisory locks are database-wide, so two gateways on two schemas
 * of one database would otherwise contend for the same shards
 * (docs/workflow-engine-notes.md). Needs `Approvals`, `PolicyBundle`,
 * `EventBus`, `HttpStepContext`, `DomainEvents`, a `SqlClient` and what
 * `executors` needs.
 * Tests pass a fake `StepExecutor` here.
 */
export const workflowWith = <E, R>(executors: Layer.Layer<StepExecutor, E, R>) => {
  // Started off the start-up path (engineInBackground.ts): its calls wait until it is ready.
  const engine = inBackground(WorkflowRuns.layer.pipe(
    Layer.provide(RunRecorderLive),
    Layer.provide(EngineFromMode)
  )).pipe(Layer.provide(executors))
  return WorkflowNoDeps.pipe(
    Layer.provide(LaneScheduler.layer),
    Layer.provideMerge(engine),
    Layer.provide(RunRecords.layer),
    Layer.provide(LaneSignals.layer),
    Layer.provide(StepInputsRepo.layer),
    Layer.provideMerge(RunsRepo.layer)
  )
}

/**
 * The workflow subsystem, wired for the gateway: {@link workflowWith} the
 * executors of the settings, with the approvals, policy bundle, secrets
 * (`HttpStepContext`) and event bus services. Needs `GatewayConfig`, a
 * `SqlClient` and `DomainEvents` (the composition root provides it, with the
 * audit chain subscribed).
 */
export const WorkflowLive = workflowWith(ExecutorsFromSettings).pipe(
  Layer.provide(HttpStepContextLive),
  Layer.provide(Approvals.layer),
  Layer.provide(PolicyBundle.layer),
  Layer.provide(EventBus.layer)
)
