/**
 * Run record writes that announce themselves (issue 12 "Events … every one
 * persisted before it is sent"): each transition of `RunsRepo` that took
 * effect registers its event with `SqlClient.afterCommit`, so it is sent
 * after the enclosing transaction commits (at once outside one), and never
 * for a write that lost its race or rolled back. The workflow metrics
 * (`workflow_runs_total`, `workflow_step_duration_seconds`; docs/operations.md
 * "Metrics") are recorded the same way, after commit.
 *
 * @module
 */
import { Context, Data, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Decision } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { GatewayMetrics } from "../metrics/GatewayMetrics.ts"
import type { AnyGatewayEvent } from "../ws-sessions/GatewayEvent.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import {
  AttemptUpdated,
  RunCancelled,
  RunCompleted,
  RunFailed,
  RunQueued,
  RunResumed,
  RunStarted,
  StepUpdated
} from "./events.ts"
import { RunEnded } from "./domainEvents.ts"
import { type NewAttempt, RunsRepo, type TransitionWrite } from "./runs/RunsRepo.ts"
import type { ExecutionAttempt, ExecutionRun } from "./runs/schema.ts"
import { isTerminal, type MachineKind, type StatusOf } from "./runs/states.ts"

/** The envelope scope of a run's events. */
export const runScope = (run_id: string) => ({ kind: "run", run_id })

/** The event announcing a run's move `from → to` (`run.paused` is sent by the pause itself, with its token). */
const runEventOf = (from: ReadonlyArray<string>, to: string): AnyGatewayEvent | undefined => {
  switch (to) {
    case "queued":
      return RunQueued
    case "running":
      return from.includes("paused") && !from.includes("queued") ? RunResumed : RunStarted
    case "succeeded":
      return RunCompleted
    case "failed":
      return RunFailed
    case "cancelled":
      return RunCancelled
    default:
      return undefined
  }
}

/** Run statuses counted by `workflow_runs_total`: arrivals and ends. */
const COUNTED_RUN_STATUSES: ReadonlySet<string> = new Set(["queued", "succeeded", "failed", "cancelled"])

/** Seconds between two ISO-8601 times (0 when either is missing or unreadable). */
const secondsBetween = (from: string | null | undefined, to: string | null | undefined): number => {
  if (from == null || to == null) return 0
  const seconds = (Date.parse(to) - Date.parse(from)) / 1000
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0
}

/** What a cancel found and did (`RunRecords.cancelRun`). */
export type CancelOutcome =
  /** The run is now `cancelled`. */
  | { readonly _tag: "cancelled" }
  /**
   * Every step had succeeded (the last attempt had ended; the engine had not
   * yet recorded the run's end): the cancel came too late, the run is now
   * `succeeded` (its job `completed`).
   */
  | { readonly _tag: "succeeded" }
  /** The run was not queued, running or paused (a racing writer ended it): nothing written. */
  | { readonly _tag: "not_open" }
  /**
   * A step is running (its attempt is in flight): nothing written. Try again
   * once it ended; `until` (epoch ms) is when the attempt must have ended
   * (its start + its step's `timeout_ms` + a grace period), after which
   * `force` records the cancel anyway.
   */
  | { readonly _tag: "in_flight"; readonly until: number }

/**
 * A queued step of the run started (a racing attempt) while a cancel was
 * being written: the cancel's transaction must roll back and be tried again.
 */
export class StepStartedDuringCancel extends Data.TaggedError("StepStartedDuringCancel")<{
  readonly run_id: string
  readonly step_id: string
}> {}

/** Time an attempt's end may take past its `timeout_ms` (its activity's own writes) before a cancel stops waiting for it. */
export const IN_FLIGHT_GRACE_MS = 5_000

/** Announcing writes of run records. */
export class RunRecords extends Context.Service<RunRecords, {
  /**
   * `RunsRepo.transition`, then (when it took effect) the matching event after
   * commit: `run.queued|started|resumed|completed|failed|cancelled`,
   * `step.updated`, `attempt.updated` (jobs have none).
   */
  readonly move: RunsRepo["Service"]["transition"]
  /** Announces a run just recorded (`run.queued`). */
  readonly queued: (run: ExecutionRun) => Effect.Effect<void>
  /**
   * Cancels a run that is not finished (queued, running or paused), announced,
   * and says what it did ({@link CancelOutcome}; docs/workflow-runs.md
   * "Cancel"). An attempt in flight is never marked: while a step is running
   * nothing is written (`in_flight`) unless `force`; its attempt ends as it
   * happens and records that. A run whose every step succeeded becomes
   * `succeeded`. Otherwise: the run (`paused_reason: "cancelled"`,
   * `paused_detail` = `detail`) and its job, its open steps; its resume
   * tokens are revoked. With `force` (nothing can be in flight, or its
   * deadline passed) a running step is cancelled too and a running attempt —
   * one whose end will never be recorded — is recorded failed `interrupted`.
   * Call inside a transaction; fails with {@link StepStartedDuringCancel}
   * (roll back, try again) when an attempt started meanwhile.
   */
  readonly cancelRun: (
    run_id: string,
    at: string,
    detail: string | null,
    options?: { readonly force?: boolean | undefined }
  ) => Effect.Effect<CancelOutcome, StepStartedDuringCancel>
  /**
   * Runs `effect` (an operator's cancel of `run_id` being written) with its
   * reason registered, so that the engine, if it applies the same cancel
   * first ({@link cancelReason}), records that reason too. In-process only:
   * after a crash the engine's write says "run cancelled".
   */
  readonly withCancelReason: (
    run_id: string,
    reason: string | null
  ) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The reason of a cancel of `run_id` this process is writing; `undefined` when none is. */
  readonly cancelReason: (run_id: string) => Effect.Effect<string | null | undefined>
  /** `RunsRepo.startAttempt`, announced (`attempt.updated`). */
  readonly startAttempt: (attempt: NewAttempt) => Effect.Effect<ExecutionAttempt>
}>()("svc-gateway/workflow/RunRecords") {
  /**
   * Needs `RunsRepo`, `EventBus`, a `SqlClient` and `DomainEvents` (a run's
   * state change is a `Decision` for its plan's chain; a run that ends is
   * published as `RunEnded`).
   */
  static readonly layer = Layer.effect(
    RunRecords,
    Effect.gen(function*() {
      const repo = yield* RunsRepo
      const events = yield* EventBus
      const sql = yield* SqlClient.SqlClient
      const metrics = yield* GatewayMetrics
      const domainEvents = yield* DomainEvents
      // A run's state change joins its plan's audit chain, in the transaction of the move (docs/audit.md).
      const auditRun = (run: ExecutionRun, from: ReadonlyArray<string>, to: string) =>
        domainEvents.publish(Decision, {
          chain: run.plan_id,
          action: {
            type: `run.${to}`,
            run_id: run.run_id,
            job_id: run.job_id,
            from,
            ...(run.paused_reason !== undefined ? { paused_reason: run.paused_reason } : {}),
            ...(run.paused_detail !== undefined ? { paused_detail: run.paused_detail } : {})
          }
        })
      const afterCommit = (record: () => void) => metrics.enabled ? sql.afterCommit(Effect.sync(record)) : Effect.void
      const announce = (event: AnyGatewayEvent | undefined, payload: unknown, run_id: string) =>
        event === undefined ? Effect.void : sql.afterCommit(Effect.asVoid(events.publish(event, payload, runScope(run_id))))

      const move = Effect.fn("RunRecords.move")(<K extends MachineKind>(
        kind: K,
        id: string,
        from: ReadonlyArray<StatusOf[K]>,
        to: StatusOf[K],
        write: TransitionWrite<K>
      ) =>
        Effect.tap(repo.transition(kind, id, from, to, write), (record) => {
          if (record === undefined) return Effect.void
          const run_id = (record as { readonly run_id: string }).run_id
          switch (kind) {
            case "run": {
              // In the move's transaction: its audit event. After the commit, in this order: the run event, the
              // metric, and (a run that ended) `RunEnded` for its subscribers.
              const run = record as ExecutionRun
              const event = runEventOf(from, to)
              return Effect.andThen(
                auditRun(run, from, to),
                Effect.andThen(
                  sql.afterCommit(Effect.gen(function*() {
                    if (event !== undefined) yield* events.publish(event, run, runScope(run.run_id))
                    if (metrics.enabled && COUNTED_RUN_STATUSES.has(to)) metrics.workflowRun(to)
                  })),
                  isTerminal("run", to as StatusOf["run"]) ? domainEvents.publish(RunEnded, run) : Effect.void
                )
              )
            }
            case "step":
              return announce(StepUpdated, record, run_id)
            case "attempt": {
              if (to === "running") return announce(AttemptUpdated, record, run_id)
              const attempt = record as { readonly started_at?: string | null; readonly finished_at?: string | null }
              return Effect.andThen(
                announce(AttemptUpdated, record, run_id),
                afterCommit(() => metrics.workflowStep(to, secondsBetween(attempt.started_at, attempt.finished_at)))
              )
            }
            default:
              return Effect.void
          }
        }))

      const OPEN = ["queued", "running", "paused"] as const
      const isOpen = (status: string) => (OPEN as ReadonlyArray<string>).includes(status)
      const cancelRun = Effect.fn("RunRecords.cancelRun")(function*(run_id: string, at: string, detail: string | null, options?: { readonly force?: boolean | undefined }) {
        const force = options?.force === true
        const current = yield* repo.getRun(run_id)
        if (current === undefined || !isOpen(current.run.status)) return { _tag: "not_open" } as const
        const running = current.steps.filter((step) => step.status === "running")
        if (running.length > 0 && !force) {
          const deadlines = running.flatMap((step) =>
            step.attempts.filter((a) => a.status === "running").map((a) => Date.parse(a.started_at) + step.action.timeout_ms)
          )
          return { _tag: "in_flight", until: Math.max(Date.parse(at), ...deadlines) + IN_FLIGHT_GRACE_MS } as const
        }
        if (current.run.status === "running" && current.steps.every((step) => step.status === "succeeded")) {
          const run = yield* move("run", run_id, ["running"], "succeeded", { at })
          if (run === undefined) return { _tag: "not_open" } as const
          yield* move("job", run.job_id, ["running"], "completed", { at })
          yield* repo.revokeTokensForRun(run_id, at)
          return { _tag: "succeeded" } as const
        }
        const run = yield* move("run", run_id, OPEN, "cancelled", { at, paused_reason: "cancelled", paused_detail: detail })
        if (run === undefined) return { _tag: "not_open" } as const
        yield* move("job", run.job_id, ["queued", "running"], "cancelled", { at })
        for (const step of current.steps) {
          for (const attempt of step.attempts) {
            if (attempt.status !== "running") continue
            yield* move("attempt", attempt.attempt_id, ["running"], "failed", {
              at,
              error: { code: "interrupted", message: "the attempt's end was never recorded (the gateway stopped during it); the run was cancelled" }
            })
          }
          if (!isOpen(step.status)) continue
          const moved = yield* move("step", step.step_id, force ? OPEN : ["queued", "paused"], "cancelled", { at })
          if (moved === undefined && !force) return yield* new StepStartedDuringCancel({ run_id, step_id: step.step_id })
        }
        yield* repo.revokeTokensForRun(run_id, at)
        return { _tag: "cancelled" } as const
      })

      const cancelReasons = new Map<string, string | null>()

      return RunRecords.of({
        move,
        cancelRun,
        // A combinator (returns a function over the caller's effect), not an Effect: no span of its own.
        withCancelReason: (run_id, reason) => (effect) =>
          Effect.acquireUseRelease(
            Effect.sync(() => cancelReasons.set(run_id, reason)),
            () => effect,
            () => Effect.sync(() => cancelReasons.delete(run_id))
          ),
        cancelReason: Effect.fn("RunRecords.cancelReason")((run_id) => Effect.sync(() => cancelReasons.get(run_id))),
        queued: Effect.fn("RunRecords.queued")((run) =>
          Effect.andThen(
            domainEvents.publish(Decision, {
              chain: run.plan_id,
              action: { type: "run.queued", run_id: run.run_id, job_id: run.job_id, key: run.key, lane: run.lane }
            }),
            Effect.andThen(announce(RunQueued, run, run.run_id), afterCommit(() => metrics.workflowRun("queued")))
          )),
        startAttempt: Effect.fn("RunRecords.startAttempt")((attempt) =>
          Effect.tap(repo.startAttempt(attempt), (record) => announce(AttemptUpdated, record, record.run_id)))
      })
    })
  )
}
