/**
 * The limit on failed authentications per client address (reference §2.6),
 * over effect/persistence's `RateLimiter` (fixed-window algorithm): every
 * failed attempt takes one token of the address's window; each token adds
 * `windowSeconds / max` seconds to the window, and once `max` are taken
 * further failures are refused until the window has drained (`Retry-After`
 * says when). Only failures are recorded (`AuthService.authenticateAttempt`),
 * so the limit stops guessing without ever refusing a valid credential.
 *
 * The counters live in a `RateLimiterStore`: in memory and bounded in keys
 * by default (layers/ratelimit/BoundedMemoryStore.ts), or Redis for several
 * instances. Time comes from Effect's `Clock`, so tests drive it with
 * `TestClock`.
 */
import { Context, Duration, Effect, Layer } from "effect"
import { RateLimiter as PersistedRateLimiter } from "effect/persistence"
import { GatewayConfig } from "../../layers/config.ts"
import * as BoundedMemoryStore from "../../layers/ratelimit/BoundedMemoryStore.ts"
import { TooManyRequests } from "../shared/errors.ts"

/** Limits for {@link RateLimiter}: `max` failures per `windowSeconds` (defaults 20 per 60 s). */
export class RateLimitConfig extends Context.Service<RateLimitConfig, {
  readonly windowSeconds: number
  readonly max: number
}>()("svc-gateway/auth/RateLimitConfig") {}

/** The failed-authentication limiter, shared by HTTP and the WS upgrade. */
export class RateLimiter extends Context.Service<RateLimiter, {
  /**
   * Records one failure for `key` (a client address); fails with
   * `TooManyRequests` (429, `retryAfterSeconds` >= 1) when the address's
   * window is already full. A refused hit is not recorded.
   */
  readonly hit: (key: string) => Effect.Effect<void, TooManyRequests>
}>()("svc-gateway/auth/RateLimiter") {
  /** Needs {@link RateLimitConfig} and a `RateLimiterStore`. */
  static readonly layerNoDeps = Layer.effect(
    RateLimiter,
    Effect.gen(function*() {
      const { max, windowSeconds } = yield* RateLimitConfig
      const limiter = yield* PersistedRateLimiter.make
      const window = Duration.seconds(windowSeconds)
      const tooMany = (retryAfter: Duration.Duration) =>
        new TooManyRequests({ message: "Too many requests", retryAfterSeconds: Math.max(1, Math.ceil(Duration.toSeconds(retryAfter))) })
      return RateLimiter.of({
        hit: /* hot path (every request or message): no span, docs/performance.md "Spans on the hot path" */ ((key) =>
          limiter.consume({ key, limit: max, window, algorithm: "fixed-window", onExceeded: "fail" }).pipe(
            Effect.asVoid,
            Effect.catch((error) =>
              error.reason._tag === "RateLimitExceeded"
                ? Effect.fail(tooMany(error.reason.retryAfter))
                // The store is unavailable: a failed authentication stays a 401 rather than locking operators out.
                : Effect.logWarning("rate limit store failed").pipe(Effect.annotateLogs({ cause: error.message }))
            )
          ))
      })
    })
  )

  /**
   * Wired for production: `SVC_AUTH_RATE_LIMIT_MAX` / `_WINDOW_S` from
   * `GatewayConfig`, counters in memory for at most 10,000 addresses.
   */
  static readonly layer = RateLimiter.layerNoDeps.pipe(
    Layer.provide(Layer.effect(
      RateLimitConfig,
      Effect.map(GatewayConfig, (s) => ({ max: s.rateLimitMax, windowSeconds: s.rateLimitWindowSeconds }))
    )),
    Layer.provide(BoundedMemoryStore.layer())
  )
}
