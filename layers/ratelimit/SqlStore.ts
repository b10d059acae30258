/**
 * A `RateLimiterStore` (effect/persistence) in the gateway's database, so
 * that every instance of a cluster counts the same failures (issue 27 §2;
 * docs/scaling.md "Shared rate limit"). Fixed windows only, with the
 * semantics of effect's memory and Redis stores: a drained window restarts
 * at now; each token adds `refillRate` to the window's end; over `limit` the
 * hit is refused (the count returned exceeds the limit) and not recorded.
 * One statement per hit (an upsert whose update is conditional), so two
 * instances hitting one key at once never lose a count. Drained windows are
 * deleted every {@link PRUNE_EVERY} hits of an instance. Token buckets and
 * adaptive state are delegated to the memory store (the gateway uses fixed
 * windows only). Time comes from Effect's `Clock`.
 *
 * @module
 */
import { Clock, Duration, Effect, Layer, Schema } from "effect"
import { RateLimiter } from "effect/persistence"
import { SqlClient, SqlSchema } from "effect/sql"
import { migrate } from "../storage/migrations.ts"
import { rateLimitMigrations } from "./migrations.ts"

/** How many hits of one instance between two deletions of drained windows. */
export const PRUNE_EVERY = 256

/** Refused by a limit when `limit` is not given (no limit). */
const NO_LIMIT = Number.MAX_SAFE_INTEGER

/** Epoch milliseconds and counts: a `bigint` from PostgreSQL's BIGINT, a number from SQLite. */
const Integer = Schema.Union([Schema.Number, Schema.BigInt])

/** A window as the statements return it. */
const Window = Schema.Struct({ count: Integer, expires_at: Integer })

const storeError = (cause: unknown) =>
  new RateLimiter.RateLimiterError({
    reason: new RateLimiter.RateLimitStoreError({ message: "Failed to execute fixedWindow in the SQL rate limit store", cause })
  })

/**
 * The SQL store; `prefix` (default `ratelimit:`) goes before every key.
 * Needs a `SqlClient` (PostgreSQL or SQLite); migrates `rate_limit_windows`.
 */
export const layer = (options?: { readonly prefix?: string | undefined }): Layer.Layer<
  RateLimiter.RateLimiterStore,
  never,
  SqlClient.SqlClient
> =>
  Layer.effect(
    RateLimiter.RateLimiterStore,
    Effect.gen(function*() {
      const delegate = yield* RateLimiter.RateLimiterStore
      const sql = yield* SqlClient.SqlClient
      yield* Effect.orDie(migrate("ratelimit", rateLimitMigrations))
      const prefix = options?.prefix ?? "ratelimit:"
      let hits = 0
      const prune = (now: number) =>
        ++hits % PRUNE_EVERY === 0 ? Effect.asVoid(sql`DELETE FROM rate_limit_windows WHERE expires_at <= ${now}`) : Effect.void
      // Insert a new window, restart a drained one, or add to a live one that stays within the limit.
      const take = SqlSchema.findAll({
        Request: Schema.Struct({ key: Schema.String, tokens: Schema.Number, add: Schema.Number, limit: Schema.Number, now: Schema.Number }),
        Result: Window,
        execute: ({ add, key, limit, now, tokens }) =>
          sql`
            INSERT INTO rate_limit_windows (key, count, expires_at) VALUES (${key}, ${tokens}, ${now + add})
            ON CONFLICT (key) DO UPDATE SET
              count = CASE WHEN rate_limit_windows.expires_at <= ${now} THEN ${tokens}
                           ELSE rate_limit_windows.count + ${tokens} END,
              expires_at = CASE WHEN rate_limit_windows.expires_at <= ${now} THEN ${now + add}
                                ELSE rate_limit_windows.expires_at + ${add} END
            WHERE rate_limit_windows.expires_at <= ${now} OR rate_limit_windows.count + ${tokens} <= ${limit}
            RETURNING count, expires_at`
      })
      const current = SqlSchema.findAll({
        Request: Schema.String,
        Result: Window,
        execute: (key) => sql`SELECT count, expires_at FROM rate_limit_windows WHERE key = ${key}`
      })
      return RateLimiter.RateLimiterStore.of({
        ...delegate,
        fixedWindow: Effect.fn("SqlRateLimiterStore.fixedWindow")(
          function*(options) {
            const now = yield* Clock.currentTimeMillis
            const key = `${prefix}${options.key}`
            const add = Duration.toMillis(options.refillRate) * options.tokens
            const limit = options.limit ?? NO_LIMIT
            const taken = yield* take({ key, tokens: options.tokens, add, limit, now })
            yield* prune(now)
            const row = taken[0]
            if (row !== undefined) return [Number(row.count), Number(row.expires_at) - now] as const
            // Refused: the window is full; report it without recording the hit.
            const full = (yield* current(key))[0]
            return full === undefined
              ? [options.tokens, add] as const
              : [Number(full.count) + options.tokens, Number(full.expires_at) - now] as const
          },
          Effect.mapError(storeError)
        )
      })
    })
  ).pipe(Layer.provide(RateLimiter.layerStoreMemory))
