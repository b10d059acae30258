/**
 * Who hears that a run ended (issue 13: `plan_complete` watchers). A run that
 * moves to `succeeded`, `failed` or `cancelled` is handed to every listener
 * once its transaction committed, in a background fiber of this layer, so a
 * listener (which may start another run) never runs inside the engine's
 * activity that ended the run. A failing listener is logged, never the
 * run's failure.
 *
 * @module
 */
import { Context, Effect, Layer, Queue } from "effect"
import type { ExecutionRun } from "./runs/schema.ts"

/** A run that ended (`status` is `succeeded`, `failed` or `cancelled`). */
export type RunEndListener = (run: ExecutionRun) => Effect.Effect<void>

/** Run-end notifications of this instance. */
export class RunOutcomes extends Context.Service<RunOutcomes, {
  /** Registers `listener` for every run that ends from now on (on this instance). */
  readonly onEnded: (listener: RunEndListener) => Effect.Effect<void>
  /** Announces an ended run to the listeners (call after its commit; never blocks). */
  readonly ended: (run: ExecutionRun) => Effect.Effect<void>
}>()("svc-gateway/workflow/RunOutcomes") {
  /** An unbounded queue drained by one fiber, stopped with the layer. */
  static readonly layer = Layer.effect(
    RunOutcomes,
    Effect.gen(function*() {
      const listeners: Array<RunEndListener> = []
      const queue = yield* Queue.unbounded<ExecutionRun>()
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(queue), (run) =>
        Effect.forEach(listeners, (listener) =>
          listener(run).pipe(
            Effect.catchCause((cause) => Effect.logWarning("run end listener failed", cause)),
            Effect.annotateLogs({ run_id: run.run_id })
          ), { discard: true }))))
      return RunOutcomes.of({
        onEnded: (listener) => Effect.sync(() => void listeners.push(listener)),
        ended: (run) => Effect.asVoid(Queue.offer(queue, run))
      })
    })
  )
}
