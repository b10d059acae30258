/**
 * An in-memory `RateLimiterStore` (effect/persistence) that tracks at most
 * `maxKeys` keys: the least recently used key is forgotten first, so memory
 * stays flat however many client addresses come and go. Fixed-window
 * counters follow the semantics of effect's own memory store
 * (`RateLimiter.layerStoreMemory`); token buckets and adaptive state are
 * delegated to it (the gateway uses fixed windows only). Several gateway
 * instances (`SVC_CLUSTER=1`) share SqlStore.ts or RedisStore.ts instead
 * (services/auth/RateLimiter.ts `rateLimitStore`).
 */
import { Duration, Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"

/** A bounded in-memory store; `maxKeys` (default 10,000) is the most keys kept. */
export const layer = (options?: { readonly maxKeys?: number | undefined }): Layer.Layer<RateLimiter.RateLimiterStore> =>
  Layer.effect(
    RateLimiter.RateLimiterStore,
    Effect.gen(function*() {
      const delegate = yield* RateLimiter.RateLimiterStore
      const maxKeys = options?.maxKeys ?? 10_000
      const counters = new Map<string, { count: number; expiresAt: number }>()
      return RateLimiter.RateLimiterStore.of({
        ...delegate,
        fixedWindow: (options) =>
          Effect.clockWith((clock) =>
            Effect.sync(() => {
              const now = clock.currentTimeMillisUnsafe()
              const refillRateMillis = Duration.toMillis(options.refillRate)
              let counter = counters.get(options.key)
              if (counter !== undefined) counters.delete(options.key) // re-inserted below: most recently used last
              if (counter === undefined || counter.expiresAt <= now) counter = { count: 0, expiresAt: now }
              counters.set(options.key, counter)
              if (counters.size > maxKeys) counters.delete(counters.keys().next().value as string)
              if (options.limit !== undefined && counter.count + options.tokens > options.limit) {
                return [counter.count + options.tokens, counter.expiresAt - now] as const
              }
              counter.count += options.tokens
              counter.expiresAt += refillRateMillis * options.tokens
              return [counter.count, counter.expiresAt - now] as const
            })
          )
      })
    })
  ).pipe(Layer.provide(RateLimiter.layerStoreMemory))
