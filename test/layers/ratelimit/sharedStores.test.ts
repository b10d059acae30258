/**
 * The shared stores of the failed-authentication counters (issue 27 §2):
 * the SQL store keeps the memory store's fixed-window semantics on both
 * databases (TestClock); on PostgreSQL two store instances (two gateways'
 * layers on one schema) count the same failures, also when they hit at once;
 * Redis the same, only when a Redis answers on 127.0.0.1:6379. The settings
 * choose the store (memory, PostgreSQL, Redis).
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Exit, Layer, Redacted } from "effect"
import { RateLimiter as PersistedRateLimiter } from "effect/persistence"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { randomBytes } from "node:crypto"
import { connect } from "node:net"
import { GatewayConfig } from "../../../layers/config.ts"
import * as RedisStore from "../../../layers/ratelimit/RedisStore.ts"
import * as SqlStore from "../../../layers/ratelimit/SqlStore.ts"
import { RateLimitConfig, RateLimiter, rateLimitStore } from "../../../services/auth/RateLimiter.ts"
import { defaultSettings } from "../../../src/app/settings.ts"
import { postgresUrl, sharedPostgresSchema, testDatabases } from "../../support/databases.ts"

/** A limiter of 3 failures per 60 s over `store`. */
const limiter = <E, R>(store: Layer.Layer<PersistedRateLimiter.RateLimiterStore, E, R>) =>
  RateLimiter.layerNoDeps.pipe(
    Layer.provide(Layer.succeed(RateLimitConfig, { max: 3, windowSeconds: 60 })),
    Layer.provide(store)
  )

/** The limiter of `layer`, built in the current scope (its clients live until the scope closes). */
const built = <E, R>(layer: Layer.Layer<RateLimiter, E, R>) => Effect.map(Layer.build(layer), (context) => Context.get(context, RateLimiter))

/** How many of `hits` were refused. */
const refusals = (results: ReadonlyArray<Exit.Exit<void, unknown>>) => results.filter(Exit.isFailure).length

for (const db of testDatabases) {
  describe(`the SQL store on ${db.name}`, () => {
    it.effect("allows max failures per window per address, then refuses with Retry-After; others unaffected", () =>
      Effect.gen(function*() {
        const rl = yield* RateLimiter
        for (let i = 0; i < 3; i++) yield* rl.hit("1.2.3.4")
        const error = yield* Effect.flip(rl.hit("1.2.3.4"))
        expect([error._tag, error.retryAfterSeconds]).toEqual(["TooManyRequests", 60])
        yield* rl.hit("5.6.7.8")
      }).pipe(Effect.provide(limiter(SqlStore.layer()).pipe(Layer.provide(db.make())))))

    it.effect("drains like the memory store: each failure holds the window for window/max seconds", () =>
      Effect.gen(function*() {
        const rl = yield* RateLimiter
        yield* rl.hit("a") // until t = 20 s
        yield* TestClock.adjust(Duration.seconds(10))
        yield* rl.hit("a") // until 40 s
        yield* rl.hit("a") // until 60 s
        expect((yield* Effect.flip(rl.hit("a"))).retryAfterSeconds).toBe(50)
        yield* TestClock.adjust(Duration.seconds(49))
        expect((yield* Effect.flip(rl.hit("a"))).retryAfterSeconds).toBe(1)
        yield* TestClock.adjust(Duration.seconds(1))
        for (let i = 0; i < 3; i++) yield* rl.hit("a")
        expect((yield* Effect.flip(rl.hit("a")))._tag).toBe("TooManyRequests")
      }).pipe(Effect.provide(limiter(SqlStore.layer()).pipe(Layer.provide(db.make())))))
  })
}

describe.skipIf(postgresUrl === undefined)("the SQL store shared by two instances on PostgreSQL", () => {
  /** Two limiters, each with its own client on one fresh schema (two gateways), given to `body`. */
  const twoInstances = <A, E>(body: (a: RateLimiter["Service"], b: RateLimiter["Service"]) => Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      const db = yield* Effect.promise(() => sharedPostgresSchema(postgresUrl!))
      return yield* Effect.scoped(Effect.gen(function*() {
        const a = yield* built(limiter(SqlStore.layer()).pipe(Layer.provide(db.layer())))
        const b = yield* built(limiter(SqlStore.layer()).pipe(Layer.provide(db.layer())))
        return yield* body(a, b)
      })).pipe(Effect.ensuring(Effect.promise(() => db.drop())))
    })

  it.effect("counts the failures sent to both instances together", () =>
    twoInstances((a, b) =>
      Effect.gen(function*() {
        yield* a.hit("9.9.9.9")
        yield* b.hit("9.9.9.9")
        yield* a.hit("9.9.9.9")
        expect((yield* Effect.flip(b.hit("9.9.9.9")))._tag).toBe("TooManyRequests")
        expect((yield* Effect.flip(a.hit("9.9.9.9")))._tag).toBe("TooManyRequests")
      })))

  it.effect("loses no count when both instances take failures at once: exactly max are let through", () =>
    twoInstances((a, b) =>
      Effect.gen(function*() {
        const hits = Array.from({ length: 10 }, (_, i) => Effect.exit((i % 2 === 0 ? a : b).hit("7.7.7.7")))
        const results = yield* Effect.all(hits, { concurrency: "unbounded" })
        expect(refusals(results)).toBe(7)
      })))
})

/** True when something answers on 127.0.0.1:6379 (checked once, before the tests are collected). */
const redisAnswers = await new Promise<boolean>((resolve) => {
  const socket = connect(6379, "127.0.0.1")
  socket.setTimeout(300, () => (socket.destroy(), resolve(false)))
  socket.once("connect", () => (socket.end(), resolve(true)))
  socket.once("error", () => resolve(false))
})

describe.skipIf(!redisAnswers)("the Redis store shared by two instances (a Redis on 127.0.0.1:6379)", () => {
  it.live("counts the failures sent to both instances together", () =>
    Effect.scoped(Effect.gen(function*() {
      const prefix = `svc-test:${randomBytes(6).toString("hex")}:`
      const store = () => RedisStore.layer({ url: "redis://127.0.0.1:6379", prefix })
      const a = yield* built(limiter(store()))
      const b = yield* built(limiter(store()))
      yield* a.hit("9.9.9.9")
      yield* b.hit("9.9.9.9")
      yield* a.hit("9.9.9.9")
      expect((yield* Effect.flip(b.hit("9.9.9.9")))._tag).toBe("TooManyRequests")
      const results = yield* Effect.all(Array.from({ length: 6 }, (_, i) => Effect.exit((i % 2 === 0 ? a : b).hit("8.8.8.8"))), {
        concurrency: "unbounded"
      })
      expect(refusals(results)).toBe(3)
    })))
})

describe("the settings choose the store", () => {
  const settings = (overrides: Parameters<typeof defaultSettings>[0]) => Layer.succeed(GatewayConfig, defaultSettings(overrides))
  const cluster = { clusterEnabled: true, databaseUrl: "postgres://svc@db/svc", clusterSecret: Redacted.make("c".repeat(32)) }
  const db = testDatabases[0]!

  it.effect("memory without SVC_CLUSTER=1", () =>
    Effect.gen(function*() {
      const rl = yield* RateLimiter
      for (let i = 0; i < 3; i++) yield* rl.hit("m")
      expect((yield* Effect.flip(rl.hit("m")))._tag).toBe("TooManyRequests")
    }).pipe(Effect.provide(limiter(rateLimitStore).pipe(Layer.provide(settings({})), Layer.provide(db.make())))))

  it.effect("the database with SVC_CLUSTER=1 and no SVC_REDIS_URL", () =>
    Effect.gen(function*() {
      const rl = yield* RateLimiter
      yield* rl.hit("s")
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ key: string }>`SELECT key FROM rate_limit_windows`
      expect(rows.map((r) => r.key)).toEqual(["auth-failures:s"])
    }).pipe(Effect.provide(limiter(rateLimitStore).pipe(Layer.provide(settings(cluster)), Layer.provideMerge(db.make())))))

  it.effect("a Redis that does not answer stops the start (SVC_CLUSTER=1 and SVC_REDIS_URL)", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(
        limiter(rateLimitStore).pipe(Layer.provide(settings({ ...cluster, redisUrl: "redis://127.0.0.1:1" })), Layer.provide(db.make()))
      )))
      expect(Exit.isFailure(exit)).toBe(true)
    }))

  it.effect.skipIf(!redisAnswers)("Redis with SVC_CLUSTER=1 and SVC_REDIS_URL (when a Redis answers)", () =>
    Effect.gen(function*() {
      const rl = yield* RateLimiter
      yield* rl.hit(`r-${randomBytes(4).toString("hex")}`)
      const sql = yield* SqlClient.SqlClient
      const tables = yield* Effect.exit(sql`SELECT key FROM rate_limit_windows`)
      expect(Exit.isFailure(tables)).toBe(true) // the SQL store was never built
    }).pipe(Effect.provide(
      limiter(rateLimitStore).pipe(Layer.provide(settings({ ...cluster, redisUrl: "redis://127.0.0.1:6379" })), Layer.provideMerge(db.make()))
    )))
})
