/**
 * Background jobs behind one seam (docs/architecture.md "Backplane"): the
 * watchers' periodic ticker and the expiry loops (approvals, policy
 * overrides) are declared here by name instead of forked by hand, so that
 * where several gateways share a database a cluster layer runs each on ONE
 * instance. The contract mirrors `effect/cluster`:
 *
 * - {@link BackgroundJobs.schedule} `{name, every | cron, run}`: a recurring
 *   job. Cluster layer: a singleton repeating `run` (`Schedule.spaced(every)`
 *   or `Schedule.cron(cron)`).
 * - {@link BackgroundJobs.singleton} `{name, run}`: a long-running,
 *   self-timed loop (sleeps until its next due time). Cluster layer: a
 *   singleton of the cluster's `Sharding` (what `Singleton.make(name, run)` does).
 *
 * Jobs stay safe to run on several instances at once (their writes are
 * conditional), so the cluster layer is an optimisation of work, not a
 * correctness fix. A job belongs to the scope that declares it (a layer's):
 * it stops when that scope closes. Local wake-ups (an approval created here
 * wakes this instance's expiry loop) reach a singleton on another instance
 * only at its next look (at most its longest sleep: 1 min for approvals).
 *
 * Per-instance housekeeping (presence pruning of this instance's in-memory
 * entries, a connection's heartbeat) is not a job: it stays a local fiber.
 *
 * The default ({@link BackgroundJobs} is a `Context.Reference`) is
 * {@link localJobs}: Effect schedules and fibers on `Clock` (tests drive
 * them with `TestClock`). With `SVC_CLUSTER=1` the root provides the cluster
 * layer (services/cluster/clusterJobs.ts, through services/cluster/roles.ts
 * `RoleJobs`); no service changes.
 *
 * @module
 */
import { Context, type Cron, type Duration, Effect, Layer, Schedule, type Scope } from "effect"

/** When a recurring job runs: `every` (now, then that long after each run ends) or at each `cron` time. */
export type JobTiming = { readonly every: Duration.Input } | { readonly cron: Cron.Cron }

/** A recurring job: a unique `name` (the cluster's entity/singleton name), its timing and one run. */
export type ScheduledJob = JobTiming & {
  readonly name: string
  /** One run; its failures are the job's to handle (a failing run must not end the schedule). */
  readonly run: Effect.Effect<void>
}

/** A self-timed loop that runs for the lifetime of the declaring scope: a unique `name` and the loop. */
export interface SingletonJob {
  readonly name: string
  readonly run: Effect.Effect<void>
}

/** The seam. */
export interface BackgroundJobsService {
  /** Starts a recurring job in the current scope. */
  readonly schedule: (job: ScheduledJob) => Effect.Effect<void, never, Scope.Scope>
  /** Starts a self-timed loop in the current scope (one instance of it where a cluster runs). */
  readonly singleton: (job: SingletonJob) => Effect.Effect<void, never, Scope.Scope>
}

/** `run` now, then again `interval` after each run ends (the local meaning of `every`). */
export const repeatEvery = (run: Effect.Effect<void>, interval: Duration.Input): Effect.Effect<void> =>
  Effect.asVoid(Effect.repeat(run, Schedule.spaced(interval)))

/** This process runs every job itself: Effect schedules and fibers (today's behaviour). */
export const localJobs: BackgroundJobsService = {
  // Not Effect.fn: each forks a job for the scope's lifetime, which a span here would parent forever.
  schedule: (job) =>
    Effect.asVoid(Effect.forkScoped(
      "every" in job ? repeatEvery(job.run, job.every) : Effect.asVoid(Effect.repeat(job.run, Schedule.cron(job.cron)))
    )),
  singleton: (job) => Effect.asVoid(Effect.forkScoped(job.run))
}

/** Where background jobs run; defaults to {@link localJobs}. */
export const BackgroundJobs = Context.Reference<BackgroundJobsService>("svc-gateway/backplane/BackgroundJobs", {
  defaultValue: () => localJobs
})

/** Provides {@link localJobs} explicitly (the default already is). */
export const BackgroundJobsLocal = Layer.succeed(BackgroundJobs, localJobs)
