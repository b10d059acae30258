/**
 * Sliding-window rate limiter of failed authentications (reference §2.6):
 * at most `max` hits per `windowSeconds` per key (the client address).
 * Only failed attempts are recorded (`AuthService.authenticateAttempt`), so
 * the limit stops guessing without ever refusing a valid credential.
 * In-memory and per-process; time comes from Effect's `Clock`, so tests can
 * drive it with `TestClock`.
 */
import { Clock, Context, Effect, Layer } from "effect"
import { TooManyRequests } from "../shared/errors.ts"

/** Limits for {@link RateLimiter}: `max` requests per `windowSeconds` (defaults 20 per 60 s). */
export class RateLimitConfig extends Context.Service<RateLimitConfig, {
  readonly windowSeconds: number
  readonly max: number
}>()("svc-gateway/auth/RateLimitConfig") {}

/** Bound on tracked keys; the oldest are evicted first so memory stays flat under address churn. */
const MAX_KEYS = 10_000

/** Rate limiting service: failed authentications over HTTP and WS upgrades, per client address. */
export class RateLimiter extends Context.Service<RateLimiter, {
  /**
   * Records one hit for `key`; fails with `TooManyRequests` (429, with
   * `retryAfterSeconds` >= 1) when the window already holds `max` hits.
   * A refused hit is not recorded.
   */
  readonly hit: (key: string) => Effect.Effect<void, TooManyRequests>
}>()("svc-gateway/auth/RateLimiter") {
  /** In-memory implementation; needs {@link RateLimitConfig}. */
  static readonly layer = Layer.effect(
    RateLimiter,
    Effect.gen(function*() {
      const { max, windowSeconds } = yield* RateLimitConfig
      const windowMs = windowSeconds * 1000
      const hits = new Map<string, Array<number>>()
      const hit = (key: string) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          let log = hits.get(key)
          if (log === undefined) {
            if (hits.size >= MAX_KEYS) hits.delete(hits.keys().next().value as string)
            log = []
            hits.set(key, log)
          }
          const cutoff = now - windowMs
          let drop = 0
          while (drop < log.length && log[drop] <= cutoff) drop++
          if (drop > 0) log.splice(0, drop)
          if (log.length >= max) {
            const retryAfterSeconds = Math.max(1, Math.ceil((log[0] + windowMs - now) / 1000))
            return Effect.fail(new TooManyRequests({ message: "Too many requests", retryAfterSeconds }))
          }
          log.push(now)
          return Effect.void
        })
      return RateLimiter.of({ hit })
    })
  )
}
