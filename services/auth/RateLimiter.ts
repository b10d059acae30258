/**
 * The limit on failed authentications per client address (reference §2.6),
 * over effect/persistence's `RateLimiter` (fixed-window algorithm): every
 * failed attempt takes one token of the address's window; each token adds
 * `windowSeconds / max` seconds to the window, and once `max` are taken
 * further failures are refused until the window has drained (`Retry-After`
 * says when). Only failures are recorded (`AuthService.authenticateAttempt`),
 * so the limit stops guessing without ever refusing a valid credential.
 *
 * The counters live in a `RateLimiterStore` ({@link rateLimitStore}): in
 * memory and bounded in keys by default (layers/ratelimit/BoundedMemoryStore.ts);
 * with `SVC_CLUSTER=1`, shared by every instance: in Redis when
 * `SVC_REDIS_URL` is set (layers/ratelimit/RedisStore.ts), else in the
 * gateway's PostgreSQL database (layers/ratelimit/SqlStore.ts). Time comes
 * from Effect's `Clock`, so tests drive it with `TestClock`.
 */
import { Context, Duration, Effect, Layer } from "effect"
import { RateLimiter as PersistedRateLimiter } from "effect/persistence"
import { SqlClient } from "effect/sql"
import { GatewayConfig } from "../../layers/config.ts"
import * as BoundedMemoryStore from "../../layers/ratelimit/BoundedMemoryStore.ts"
import * as RedisStore from "../../layers/ratelimit/RedisStore.ts"
import * as SqlStore from "../../layers/ratelimit/SqlStore.ts"
import { TooManyRequests } from "../shared/errors.ts"

/** Limits for {@link RateLimiter}: `max` failures per `windowSeconds` (defaults 20 per 60 s). */
export class RateLimitConfig extends Context.Service<RateLimitConfig, {
  readonly windowSeconds: number
  readonly max: number
}>()("svc-gateway/auth/RateLimitConfig") {}

/**
 * The store of the failed-authentication counters the settings choose: with
 * `SVC_CLUSTER=1`, Redis at `SVC_REDIS_URL` if set (a server that does not
 * answer stops the start), else the database's `rate_limit_windows`; without
 * it, memory (at most 10,000 addresses). Needs `GatewayConfig` and a `SqlClient`.
 */
export const rateLimitStore: Layer.Layer<PersistedRateLimiter.RateLimiterStore, never, GatewayConfig | SqlClient.SqlClient> =
  Layer.unwrap(Effect.map(GatewayConfig, (settings) =>
    !settings.clusterEnabled
      ? BoundedMemoryStore.layer()
      : settings.redisUrl !== undefined
      ? Layer.orDie(RedisStore.layer({ url: settings.redisUrl, prefix: "svc:auth-failures:" }))
      : SqlStore.layer({ prefix: "auth-failures:" })))

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
   * `GatewayConfig`, counters in {@link rateLimitStore}.
   */
  static readonly layer = RateLimiter.layerNoDeps.pipe(
    Layer.provide(Layer.effect(
      RateLimitConfig,
      Effect.map(GatewayConfig, (s) => ({ max: s.rateLimitMax, windowSeconds: s.rateLimitWindowSeconds }))
    )),
    Layer.provide(rateLimitStore)
  )
}
