/**
 * Background jobs run once across a cluster (issue 27 §1; docs/scaling.md
 * "Singletons"): the `BackgroundJobs` of an `all`/`worker` instance with
 * `SVC_CLUSTER=1`. Each job is an `effect/cluster` singleton
 * (`Sharding.registerSingleton`, what `Singleton.make` does): it runs on the
 * runner that holds its shard, and moves to another runner when that one
 * stops or dies (after its shard lock expires). A `schedule` job is a
 * singleton repeating its run (`every`: `Schedule.spaced`, `cron`:
 * `Schedule.cron`), so the sub-minute `every` of the watcher ticker keeps
 * its meaning.
 *
 * The cluster's `Sharding` is built with the workflow engine, off the
 * start-up path (services/workflow/engineInBackground.ts), after most jobs
 * are declared. So {@link makeClusterJobs} takes a {@link ClusterSharding}
 * handle (a `Deferred` the engine layer fills once its `Sharding` is built):
 * a job declared before waits for it in a fiber of the declaring scope and
 * is registered then. Closing the declaring scope unregisters the job (and
 * stops it where it runs).
 *
 * @module
 */
import { Cause, Context, Deferred, Effect, Layer, Schedule } from "effect"
import * as Sharding from "effect/cluster/Sharding"
import { BackgroundJobs, type BackgroundJobsService, repeatEvery } from "../backplane/BackgroundJobs.ts"

/**
 * Where the cluster's `Sharding` becomes available: `undefined` (the
 * default) outside a cluster; with `SVC_CLUSTER=1` a `Deferred` completed by
 * the workflow engine's layer (services/workflow/engine/WorkflowEngineLive.ts)
 * once it has built the runner.
 */
export const ClusterSharding = Context.Reference<Deferred.Deferred<Sharding.Sharding["Service"]> | undefined>(
  "svc-gateway/cluster/ClusterSharding",
  { defaultValue: () => undefined }
)

/** `BackgroundJobs` whose jobs are singletons of the `Sharding` that `sharding` yields (see the module's doc). */
export const makeClusterJobs = (sharding: Deferred.Deferred<Sharding.Sharding["Service"]>): BackgroundJobsService => {
  // Not Effect.fn: each forks a registration for the scope's lifetime (as localJobs does).
  const register = <E>(name: string, run: Effect.Effect<void, E>) =>
    Effect.asVoid(Effect.forkScoped(Effect.scoped(Effect.gen(function*() {
      const service = yield* Deferred.await(sharding)
      yield* service.registerSingleton(name, run)
      // Registered for as long as the declaring scope is open.
      return yield* Effect.never
    })).pipe(
      // A second registration of one name in one process is a defect of the declaring code: say so, keep the first.
      Effect.onError((cause) =>
        Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.logError("cluster job failed to register", { job: name }, cause)
      )
    )))
  return {
    schedule: (job) =>
      register(
        job.name,
        "every" in job ? repeatEvery(job.run, job.every) : Effect.asVoid(Effect.repeat(job.run, Schedule.cron(job.cron)))
      ),
    singleton: (job) => register(job.name, job.run)
  }
}

/**
 * The cluster's jobs for one instance: a fresh {@link ClusterSharding}
 * handle and {@link makeClusterJobs} over it, as `BackgroundJobs`. Both are
 * references: the layer adds nothing to a graph's type.
 */
export const ClusterJobsLive: Layer.Layer<never> = Layer.unwrap(Effect.map(
  Deferred.make<Sharding.Sharding["Service"]>(),
  (sharding) =>
    Layer.merge(Layer.succeed(ClusterSharding, sharding), Layer.succeed(BackgroundJobs, makeClusterJobs(sharding)))
))

/**
 * Completes the {@link ClusterSharding} handle in the environment (if any)
 * with the `Sharding` in the environment: the workflow engine's layer runs
 * it once its runner is built.
 */
export const PublishClusterSharding: Layer.Layer<never, never, Sharding.Sharding> = Layer.effectDiscard(
  Effect.gen(function*() {
    const handle = yield* ClusterSharding
    if (handle === undefined) return
    yield* Deferred.succeed(handle, yield* Sharding.Sharding)
  })
)
