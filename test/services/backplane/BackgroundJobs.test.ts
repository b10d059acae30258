/**
 * The local background jobs (the default of `BackgroundJobs`), on TestClock:
 * `every` runs now and then that long after each run, `cron` at each cron
 * time, a singleton runs its loop; all stop when the declaring scope closes.
 * A provided implementation replaces the default (the cluster layer's seam).
 */
import { describe, expect, it } from "@effect/vitest"
import { Cron, Duration, Effect, Layer, Scope } from "effect"
import { TestClock } from "effect/testing"
import { BackgroundJobs, type BackgroundJobsService } from "../../../services/backplane/BackgroundJobs.ts"

describe("BackgroundJobs (local)", () => {
  it.effect("every: a run now, then one per interval; stops with its scope", () =>
    Effect.gen(function*() {
      const jobs = yield* BackgroundJobs
      let runs = 0
      const scope = yield* Scope.make()
      yield* jobs.schedule({ name: "test.every", every: Duration.seconds(1), run: Effect.sync(() => void runs++) }).pipe(Scope.provide(scope))
      yield* TestClock.adjust(0)
      expect(runs).toBe(1)
      yield* TestClock.adjust(Duration.seconds(3))
      expect(runs).toBe(4)
      yield* Scope.close(scope, undefined as never)
      yield* TestClock.adjust(Duration.seconds(3))
      expect(runs).toBe(4)
    }))

  it.effect("cron: a run at each cron time", () =>
    Effect.gen(function*() {
      const jobs = yield* BackgroundJobs
      let runs = 0
      const scope = yield* Scope.make()
      yield* jobs.schedule({ name: "test.cron", cron: Cron.parseUnsafe("*/10 * * * * *", "UTC"), run: Effect.sync(() => void runs++) })
        .pipe(Scope.provide(scope))
      yield* TestClock.adjust(0)
      const first = runs
      yield* TestClock.adjust(Duration.seconds(30))
      expect(runs - first).toBe(3)
      yield* Scope.close(scope, undefined as never)
    }))

  it.effect("singleton: the loop runs in the declaring scope", () =>
    Effect.gen(function*() {
      const jobs = yield* BackgroundJobs
      let rounds = 0
      const scope = yield* Scope.make()
      yield* jobs.singleton({ name: "test.loop", run: Effect.forever(Effect.andThen(Effect.sync(() => void rounds++), Effect.sleep("1 minute"))) })
        .pipe(Scope.provide(scope))
      yield* TestClock.adjust(Duration.minutes(2))
      expect(rounds).toBe(3)
      yield* Scope.close(scope, undefined as never)
      yield* TestClock.adjust(Duration.minutes(2))
      expect(rounds).toBe(3)
    }))

  it.effect("a provided implementation replaces the local default", () =>
    Effect.gen(function*() {
      const declared: Array<string> = []
      const recording: BackgroundJobsService = {
        schedule: (job) => Effect.sync(() => void declared.push(`schedule ${job.name}`)),
        singleton: (job) => Effect.sync(() => void declared.push(`singleton ${job.name}`))
      }
      yield* Effect.gen(function*() {
        const jobs = yield* BackgroundJobs
        yield* jobs.schedule({ name: "a", every: "1 second", run: Effect.void })
        yield* jobs.singleton({ name: "b", run: Effect.void })
      }).pipe(Effect.scoped, Effect.provide(Layer.succeed(BackgroundJobs, recording)))
      expect(declared).toEqual(["schedule a", "singleton b"])
    }))
})
