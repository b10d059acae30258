/** The failed-authentication limiter over effect/persistence, driven by the test clock. */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as BoundedMemoryStore from "../../../layers/ratelimit/BoundedMemoryStore.ts"
import { RateLimitConfig, RateLimiter } from "../../../services/auth/RateLimiter.ts"

const limiter = (maxKeys?: number) =>
  RateLimiter.layerNoDeps.pipe(
    Layer.provide(Layer.succeed(RateLimitConfig, { max: 3, windowSeconds: 60 })),
    Layer.provide(BoundedMemoryStore.layer({ maxKeys }))
  )

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
    }).pipe(Effect.provide(limiter())))

  it.effect("drains: each hit holds the window for window/max seconds; once drained the address starts afresh", () =>
    Effect.gen(function*() {
      const rl = yield* RateLimiter
      yield* rl.hit("a") // window until t = 20 s
      yield* TestClock.adjust(Duration.seconds(10))
      yield* rl.hit("a") // until 40 s
      yield* rl.hit("a") // until 60 s
      const error = yield* Effect.flip(rl.hit("a"))
      expect(error.retryAfterSeconds).toBe(50)
      yield* TestClock.adjust(Duration.seconds(49))
      expect((yield* Effect.flip(rl.hit("a"))).retryAfterSeconds).toBe(1)
      yield* TestClock.adjust(Duration.seconds(1))
      for (let i = 0; i < 3; i++) yield* rl.hit("a")
      expect((yield* Effect.flip(rl.hit("a")))._tag).toBe("TooManyRequests")
    }).pipe(Effect.provide(limiter())))

  it.effect("keeps at most maxKeys addresses: the least recently used is forgotten first", () =>
    Effect.gen(function*() {
      const rl = yield* RateLimiter
      for (let i = 0; i < 3; i++) yield* rl.hit("old")
      expect((yield* Effect.flip(rl.hit("old")))._tag).toBe("TooManyRequests")
      yield* rl.hit("b")
      yield* rl.hit("c") // "old" (least recently used) is evicted
      yield* rl.hit("old")
    }).pipe(Effect.provide(limiter(2))))
})
