/**
 * The workflow runner off the start-up path (issue 22 §4): building the
 * durable engine registers the runner, creates the cluster tables and takes
 * the shard locks, which is a good part of a start. {@link inBackground}
 * builds it in a fiber of the layer's scope once the {@link StartupGate}
 * opens (the root opens it when the HTTP server listens) and provides a
 * `WorkflowRuns` whose calls wait until it is ready, so `/healthz` answers
 * before it is, and a workflow request made meanwhile waits for it. Runs
 * recorded before a restart are taken up by `LaneScheduler`'s recovery fiber,
 * which waits the same way. Releasing the layer interrupts a build in
 * progress, or releases the built engine (runner and shard locks) first.
 *
 * @module
 */
import { Context, Deferred, Effect, Layer } from "effect"
import { StartupGate } from "../../layers/startup.ts"
import { WorkflowRuns } from "./engine/WorkflowRuns.ts"

/** `engine`'s `WorkflowRuns`, built in the background once the start-up gate opens. */
export const inBackground = <R>(engine: Layer.Layer<WorkflowRuns, never, R>): Layer.Layer<WorkflowRuns, never, R> =>
  Layer.fromBuild((memoMap, scope) =>
    Effect.gen(function*() {
      const gate = yield* StartupGate
      const context = yield* Effect.context<R>()
      // Built in the graph's memo map: layers it shares with the rest of the graph are built once.
      const built = yield* Deferred.make<WorkflowRuns["Service"]>()
      yield* Effect.forkIn(
        gate.opened.pipe(
          Effect.andThen(Layer.buildWithMemoMap(engine, memoMap, scope)),
          Effect.map((services) => Context.get(services, WorkflowRuns)),
          Effect.provideContext(context),
          Effect.tapCause((cause) => Effect.logError("workflow engine failed to start", cause)),
          Effect.exit,
          Effect.flatMap((exit) => Deferred.done(built, exit))
        ),
        scope
      )
      const ready = <A>(f: (runs: WorkflowRuns["Service"]) => Effect.Effect<A>) => Effect.flatMap(Deferred.await(built), f)
      return WorkflowRuns.context(WorkflowRuns.of({
        start: (payload) => ready((runs) => runs.start(payload)),
        resume: (run_id, pause, decision) => ready((runs) => runs.resume(run_id, pause, decision)),
        cancel: (run_id) => ready((runs) => runs.cancel(run_id)),
        status: (run_id) => ready((runs) => runs.status(run_id)),
        awaitSettled: (run_id, interval) => ready((runs) => runs.awaitSettled(run_id, interval))
      }))
    })
  )
