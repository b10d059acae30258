/**
 * Run record writes that announce themselves (issue 12 "Events … every one
 * persisted before it is sent"): each transition of `RunsRepo` that took
 * effect registers its event with `SqlClient.afterCommit`, so it is sent
 * after the enclosing transaction commits (at once outside one), and never
 * for a write that lost its race or rolled back.
 *
 * @module
 */
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
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
import { RunOutcomes } from "./RunOutcomes.ts"
import { type NewAttempt, RunsRepo, type TransitionWrite } from "./runs/RunsRepo.ts"
import type { ExecutionAttempt, ExecutionRun } from "./runs/schema.ts"
import type { MachineKind, StatusOf } from "./runs/states.ts"

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
   * Cancels a run that is not finished, announced: the run (`paused_reason:
   * "cancelled"`, `paused_detail` = `detail`) and its job, running attempts
   * (error `cancelled`), open steps; its resume tokens are revoked. `false`
   * when the run was not queued, running or paused (a racing writer ended it).
   * Call inside a transaction.
   */
  readonly cancelRun: (run_id: string, at: string, detail: string | null) => Effect.Effect<boolean, SqlError>
  /** `RunsRepo.startAttempt`, announced (`attempt.updated`). */
  readonly startAttempt: (attempt: NewAttempt) => Effect.Effect<ExecutionAttempt, SqlError>
}>()("svc-gateway/workflow/RunRecords") {
  /** Needs `RunsRepo`, `RunOutcomes` (told of every run that ends, after commit), `EventBus` and a `SqlClient`. */
  static readonly layer = Layer.effect(
    RunRecords,
    Effect.gen(function*() {
      const repo = yield* RunsRepo
      const events = yield* EventBus
      const sql = yield* SqlClient.SqlClient
      const outcomes = yield* RunOutcomes
      const announce = (event: AnyGatewayEvent | undefined, payload: unknown, run_id: string) =>
        event === undefined ? Effect.void : sql.afterCommit(Effect.asVoid(events.publish(event, payload, runScope(run_id))))

      const move = <K extends MachineKind>(
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
            case "run":
              return to === "succeeded" || to === "failed" || to === "cancelled"
                ? Effect.andThen(
                  announce(runEventOf(from, to), record, run_id),
                  sql.afterCommit(outcomes.ended(record as ExecutionRun))
                )
                : announce(runEventOf(from, to), record, run_id)
            case "step":
              return announce(StepUpdated, record, run_id)
            case "attempt":
              return announce(AttemptUpdated, record, run_id)
            default:
              return Effect.void
          }
        })

      const OPEN = ["queued", "running", "paused"] as const
      const cancelRun = (run_id: string, at: string, detail: string | null) =>
        Effect.gen(function*() {
          const run = yield* move("run", run_id, OPEN, "cancelled", { at, paused_reason: "cancelled", paused_detail: detail })
          if (run === undefined) return false
          yield* move("job", run.job_id, ["queued", "running"], "cancelled", { at })
          const current = yield* repo.getRun(run_id)
          for (const step of current?.steps ?? []) {
            for (const attempt of step.attempts) {
              if (attempt.status === "running") {
                yield* move("attempt", attempt.attempt_id, ["running"], "cancelled", {
                  at,
                  error: { code: "cancelled", message: detail ?? "run cancelled" }
                })
              }
            }
            if ((OPEN as ReadonlyArray<string>).includes(step.status)) yield* move("step", step.step_id, OPEN, "cancelled", { at })
          }
          yield* repo.revokeTokensForRun(run_id, at)
          return true
        })

      return RunRecords.of({
        move,
        cancelRun,
        queued: (run) => announce(RunQueued, run, run.run_id),
        startAttempt: (attempt) =>
          Effect.tap(repo.startAttempt(attempt), (record) => announce(AttemptUpdated, record, record.run_id))
      })
    })
  )
}
