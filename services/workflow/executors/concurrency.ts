/**
 * The global limit on running steps (issue 12 §2, `SVC_EXEC_CONCURRENCY`,
 * default 4): a `StepExecutor` decorator holding one permit of a semaphore
 * while an attempt runs. Only attempts take permits: a paused run (waiting
 * for an approval) holds none, so paused runs can never stall the engine.
 *
 * @module
 */
import { Effect, Layer, Semaphore } from "effect"
import { StepExecutor } from "../StepExecutor.ts"

/** `executor` with at most `permits` attempts running at once (the others wait, in arrival order). */
export const limitConcurrency = (
  executor: StepExecutor["Service"],
  permits: number
): Effect.Effect<StepExecutor["Service"]> =>
  Effect.map(Semaphore.make(permits), (slots) =>
    // Wraps an executor that is traced itself (`StepExecutor.execute`): no second span.
    StepExecutor.of({ execute: (action, context) => slots.withPermits(1)(executor.execute(action, context)) }))

/** Replaces the `StepExecutor` of `layer` with one limited to `permits` running attempts. */
export const concurrencyLimited = <E, R>(
  layer: Layer.Layer<StepExecutor, E, R>,
  permits: number
): Layer.Layer<StepExecutor, E, R> =>
  Layer.effect(StepExecutor, Effect.flatMap(StepExecutor, (executor) => limitConcurrency(executor, permits)))
    .pipe(Layer.provide(layer))
