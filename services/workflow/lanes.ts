/**
 * Lanes (issue 12 §2, reference §6.4): one run at a time per (key, lane), in
 * arrival order. A run is recorded `queued`; it is admitted (queued →
 * running, then handed to the engine) when it is the earliest queued run of
 * its lane and no running or paused run holds the lane. The database decides
 * races: the partial unique index on running/paused runs per (key, lane)
 * rejects a second holder, so two admissions of one lane cannot both win.
 *
 * Admission happens when a run is recorded and whenever a lane may have been
 * freed (a run ended or was cancelled: {@link LaneSignals}), and at start for
 * every lane with queued runs (runs recorded before a crash).
 *
 * @module
 */
import { Clock, Context, Effect, Layer, Queue } from "effect"
import type { RunPayload } from "./engine/RunWorkflow.ts"
import { WorkflowRuns } from "./engine/WorkflowRuns.ts"
import { RunRecords } from "./RunRecords.ts"
import type { Lane } from "./runs/keys.ts"
import { StepInputsRepo } from "./inputs/StepInputsRepo.ts"
import { RunsRepo } from "./runs/RunsRepo.ts"
import { isoTime } from "../shared/time.ts"

/** A lane: runs with the same key and lane run one at a time. */
export interface LaneId {
  readonly key: string
  readonly lane: Lane
}

/** "This lane may be free now": sent after a run's end or cancel is committed. */
export class LaneSignals extends Context.Service<LaneSignals, {
  readonly signal: (lane: LaneId) => Effect.Effect<void>
  readonly take: Effect.Effect<LaneId>
}>()("svc-gateway/workflow/LaneSignals") {
  /** An unbounded in-process queue. */
  static readonly layer = Layer.effect(
    LaneSignals,
    Effect.map(Queue.unbounded<LaneId>(), (queue) =>
      LaneSignals.of({
        signal: Effect.fn("LaneSignals.signal")((lane) => Effect.asVoid(Queue.offer(queue, lane))),
        take: Queue.take(queue)
      }))
  )
}

/** Admits queued runs to their lanes. */
export class LaneScheduler extends Context.Service<LaneScheduler, {
  /**
   * Starts the lane's next queued run if the lane is free (nothing when it is
   * held or empty). `recorded`: the payload of a run the caller has just
   * recorded (its stored steps, no redacted one); when that run is the one
   * admitted it starts from it, without reading the run back (issue 22 §1).
   */
  readonly admit: (lane: LaneId, recorded?: RunPayload) => Effect.Effect<void>
}>()("svc-gateway/workflow/LaneScheduler") {
  /**
   * Admits on every {@link LaneSignals} signal (a background fiber of the
   * layer's scope); at start, re-attaches the engine to running and paused
   * runs (a no-op for executions it already has) and admits every lane with
   * queued runs (a redacted step runs with its real action, `StepInputsRepo`).
   * Needs `WorkflowRuns`, `RunsRepo`, `StepInputsRepo`, `RunRecords`, `LaneSignals`.
   */
  static readonly layer = Layer.effect(
    LaneScheduler,
    Effect.gen(function*() {
      const runs = yield* WorkflowRuns
      const repo = yield* RunsRepo
      const records = yield* RunRecords
      const signals = yield* LaneSignals
      const inputs = yield* StepInputsRepo

      const start = (run_id: string) =>
        Effect.gen(function*() {
          const detail = yield* repo.getRun(run_id)
          if (detail === undefined) return
          // A redacted step record (inline credentials) runs with its real action.
          const real = yield* inputs.forRun(run_id)
          yield* runs.start({
            run_id,
            steps: detail.steps.map((s) => real.get(s.step_index) ?? s.action),
            ...(detail.run.budgets === undefined ? {} : { budgets: detail.run.budgets })
          })
        })

      const admit = Effect.fn("LaneScheduler.admit")(function*(lane: LaneId, recorded?: RunPayload) {
        const next = yield* repo.nextQueuedInLane(lane.key, lane.lane)
        if (next === undefined) return
        const at = isoTime(yield* Clock.currentTimeMillis)
        const admitted = yield* repo.transaction(Effect.gen(function*() {
          const run = yield* records.move("run", next.run_id, ["queued"], "running", { at })
          if (run !== undefined) yield* records.move("job", run.job_id, ["queued"], "running", { at })
          return run
        }))
        if (admitted === undefined) return
        if (recorded !== undefined && recorded.run_id === admitted.run_id) yield* runs.start(recorded)
        else yield* start(admitted.run_id)
      }, Effect.orDie)

      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(signals.take, (lane) =>
        admit(lane).pipe(Effect.catchCause((cause) => Effect.logError("workflow lane admission failed", cause))))))

      // Runs recorded before this process started (a restart, a crash).
      yield* Effect.forkScoped(Effect.gen(function*() {
        const unfinished = yield* repo.unfinishedRuns
        const lanes = new Map<string, LaneId>()
        for (const run of unfinished) {
          if (run.status === "queued") lanes.set(JSON.stringify([run.key, run.lane]), { key: run.key, lane: run.lane })
          else yield* start(run.run_id)
        }
        for (const lane of lanes.values()) yield* admit(lane)
      }).pipe(Effect.catchCause((cause) => Effect.logError("workflow recovery at start failed", cause))))

      return LaneScheduler.of({ admit })
    })
  )
}
