/**
 * The failed-authentication counters in Redis (issue 27 §2): effect's own
 * Redis store (`RateLimiter.layerStoreRedis`, an atomic Lua script per hit)
 * over `@effect/platform-node`'s `NodeRedis` client. The client module (and
 * the `redis` package behind it) is loaded only when this layer is built,
 * so a gateway without `SVC_REDIS_URL` never loads it. Building fails with
 * `RedisError` when the server does not answer.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"
import type { Redis } from "effect/persistence"

/** The Redis store at `url` (`redis://` or `rediss://`); `prefix` (default `svc:ratelimit:`) goes before every key. */
export const layer = (options: { readonly url: string; readonly prefix?: string | undefined }): Layer.Layer<
  RateLimiter.RateLimiterStore,
  Redis.RedisError
> =>
  RateLimiter.layerStoreRedis({ prefix: options.prefix ?? "svc:ratelimit:" }).pipe(
    Layer.provide(Layer.unwrap(Effect.map(
      Effect.promise(() => import("@effect/platform-node/NodeRedis")),
      (NodeRedis) => NodeRedis.layer({ url: options.url })
    )))
  )
