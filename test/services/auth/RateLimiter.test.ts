/** Sliding-window rate limiter, driven by the test clock. */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import { RateLimitConfig, RateLimiter } from "../../../services/auth/RateLimiter.ts"

const limiter = RateLimiter.layer.pipe(Layer.provide(Layer.succeed(RateLimitConfig, { max: 3, windowSeconds: 60 })))

describe("RateLimiter", () => {
  it.effect("allows max hits per window per key, then fails with Retry-After", () =>
    Effect.gen(function*() {
      const rl = yield* RateLimiter
      for (let i = 0; i < 3; i++) yield* rl.hit("1.2.3.4")
      const refused = yield* Effect.exit(rl.hit("1.2.3.4"))
      expect(Exit.isFailure(refused)).toBe(true)
      const error = yield* Effect.flip(rl.hit("1.2.3.4"))
      expect(error._tag).toBe("TooManyRequests")
      expect(error.retryAfterSeconds).toBe(60)
      // Other addresses are unaffected.
      yield* rl.hit("5.6.7.8")
    }).pipe(Effect.provide(limiter)))

  it.effect("slides: hits leave the window as time passes", () =>
    Effect.gen(function*() {
      const rl = yield* RateLimiter
      yield* rl.hit("a")
      yield* TestClock.adjust(Duration.seconds(30))
      yield* rl.hit("a")
      yield* rl.hit("a")
      const error = yield* Effect.flip(rl.hit("a"))
      expect(error.retryAfterSeconds).toBe(30)
      yield* TestClock.adjust(Duration.seconds(31))
      yield* rl.hit("a")
      const again = yield* Effect.flip(rl.hit("a"))
      expect(again.retryAfterSeconds).toBe(29)
    }).pipe(Effect.provide(limiter)))
})
