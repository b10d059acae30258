/**
 * The workflow runner off the start-up path (issue 22 §4): building the
 * durable engine registers the runner, creates the cluster tables and takes
 * the shard locks, which is a good part of a start. {@link inBackground}
 * builds it in a fiber of the layer's scope once the {@link StartupGate}
 * opens (the root opens it when the HTTP server listens), on first use or
 * {@link ENGINE_IDLE_START} later, whichever comes first, and provides a
 * `WorkflowRuns` whose calls wait until it is ready: `/healthz` answers
 * before it is, and a workflow request made meanwhile waits for it. The
 * delay matters because the build runs on the event loop without letting
 * I/O through: started the moment the server listens, it would hold back the
 * first requests for as long as it takes. Runs recorded before a restart are
 * taken up by `LaneScheduler`'s recovery fiber, whose first call starts the
 * engine. Releasing the layer interrupts a build in progress, or releases
 * the built engine (runner and shard locks) first.
 *
 * @module
 */
import { Context, Deferred, Duration, Effect, Layer } from "effect"
import { StartupGate } from "../backplane/StartupGate.ts"
import { WorkflowRuns } from "./engine/WorkflowRuns.ts"

/** How long after the start-up gate opens the engine is built when no call asked for it before. */
export const ENGINE_IDLE_START: Duration.Duration = Duration.millis(200)

/** `engine`'s `WorkflowRuns`, built in the background once the start-up gate opens (see the module's doc). */
export const inBackground = <R>(
  engine: Layer.Layer<WorkflowRuns, never, R>,
  idleStart: Duration.Input = ENGINE_IDLE_START
): Layer.Layer<WorkflowRuns, never, R> =>
  Layer.fromBuild((memoMap, scope) =>
    Effect.gen(function*() {
      const gate = yield* StartupGate
      const context = yield* Effect.context<R>()
      // Built in the graph's memo map: layers it shares with the rest of the graph are built once.
      const built = yield* Deferred.make<WorkflowRuns["Service"]>()
      const demanded = yield* Deferred.make<void>()
      yield* Effect.forkIn(
        gate.opened.pipe(
          Effect.andThen(Effect.raceFirst(Deferred.await(demanded), Effect.sleep(idleStart))),
          Effect.andThen(Layer.buildWithMemoMap(engine, memoMap, scope)),
          Effect.map((services) => Context.get(services, WorkflowRuns)),
          Effect.provideContext(context),
          Effect.tapCause((cause) => Effect.logError("workflow engine failed to start", cause)),
          Effect.exit,
          Effect.flatMap((exit) => Deferred.done(built, exit))
        ),
        scope
      )
      const ready = <A>(f: (runs: WorkflowRuns["Service"]) => Effect.Effect<A>) =>
        Effect.andThen(Deferred.succeed(demanded, undefined), Effect.flatMap(Deferred.await(built), f))
      return WorkflowRuns.context(WorkflowRuns.of({
        start: (payload) => ready((runs) => runs.start(payload)),
        resume: (run_id, pause, decision) => ready((runs) => runs.resume(run_id, pause, decision)),
        cancel: (run_id) => ready((runs) => runs.cancel(run_id)),
        status: (run_id) => ready((runs) => runs.status(run_id)),
        awaitSettled: (run_id, interval) => ready((runs) => runs.awaitSettled(run_id, interval))
      }))
    })
  )
