/**
 * The model catalog on every test database (SQLite always, PostgreSQL when
 * SVC_TEST_DATABASE_URL is set), against a local models.dev: the bundled
 * snapshot with no network (status, providers, prices, the built-in
 * provider); a remote refresh (200 with an ETag, then 304 for the same
 * ETag); failures that keep the cache (500, an invalid body, malformed JSON,
 * no answer within 10 s under the TestClock, unreachable); one refresh at a
 * time (two instances on one database: one fetch, the other reads what it
 * stored; concurrent calls in one instance share one fetch); the lease's
 * expiry; the background job (start-up does not wait, hourly under the
 * TestClock).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { sha256Hex } from "../../../services/shared/sha256.ts"
import { usdMicros } from "../../../services/models/catalog.ts"
import { FETCH_DISABLED, Models } from "../../../services/models/Models.ts"
import { ModelsRepo } from "../../../services/models/ModelsRepo.ts"
import { testDatabases } from "../../support/databases.ts"
import { acmeCatalog, type FakeModelsDev, liveClockDb, modelsInstance, startFakeModelsDev } from "./support.ts"

const BUNDLED = readFileSync(new URL("../../../services/models/catalog.bundled.json", import.meta.url), "utf8")
const bundledJson = JSON.parse(BUNDLED) as Record<string, { models: Record<string, unknown> }>
const BUNDLED_PROVIDERS = Object.keys(bundledJson).length
const BUNDLED_MODELS = Object.values(bundledJson).reduce((n, p) => n + Object.keys(p.models).length, 0)
const EPOCH = "1970-01-01T00:00:00.000Z"

let fake: FakeModelsDev
beforeAll(async () => {
  fake = await startFakeModelsDev()
})
afterAll(() => fake.close())
beforeEach(() => {
  fake.requests.length = 0
  fake.answer = { status: 404, body: "" }
})

/** A port nothing listens on (taken, then let go). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      server.close(() => resolve(port))
    })
  })

const waitFor = (n: number) => Effect.promise(() => fake.received(n))

for (const db of testDatabases) {
  describe(`the model catalog on ${db.name}`, () => {
    const provide = <A, E>(effect: Effect.Effect<A, E, any>, layer: Layer.Layer<any, any, any> = modelsInstance(fake.url)) =>
      effect.pipe(Effect.provide(layer.pipe(Layer.provideMerge(liveClockDb(db.make()))))) as Effect.Effect<A, E>

    it.effect("serves the bundled snapshot with no network, with prices and the built-in provider", () =>
      provide(
        Effect.gen(function*() {
          const models = yield* Models
          expect(yield* models.status()).toEqual({
            source: "bundled",
            fetched_at: null,
            updated_at: null,
            etag: null,
            sha256: sha256Hex(BUNDLED),
            provider_count: BUNDLED_PROVIDERS,
            model_count: BUNDLED_MODELS,
            last_error: null
          })
          const { catalog } = yield* models.current()
          expect(Object.keys(catalog).sort()).toEqual(["anthropic", "builtin", "openai"])
          expect(yield* models.price("openai/gpt-4.1-mini")).toEqual({ input: 0.4, output: 1.6, cache_read: 0.1 })
          expect(yield* models.price("anthropic/claude-sonnet-4-5")).toMatchObject({ input: 3, output: 15 })
          expect(yield* models.price("builtin/echo")).toEqual({ input: 0, output: 0 })
          expect(yield* models.price("builtin/nope")).toBeUndefined()
          expect(yield* models.price("gpt-4.1-mini")).toBeUndefined()
          expect(yield* models.price("openai/")).toBeUndefined()
          expect(yield* models.price("toString/x")).toBeUndefined()
          expect(yield* models.get("openai", "gpt-4.1")).toMatchObject({ id: "gpt-4.1", limit: { context: 1047576, output: 32768 } })
          expect(yield* models.get("openai", "constructor")).toBeUndefined()
          const missing = yield* Effect.flip(models.provider("nope"))
          expect({ tag: missing._tag, message: missing.message }).toEqual({ tag: "NotFound", message: "provider 'nope' not found" })
          // A refresh with fetching disabled fetches nothing and says why.
          expect(yield* models.refresh()).toMatchObject({ source: "bundled", last_error: FETCH_DISABLED })
          expect(fake.requests).toEqual([])
          expect((yield* models.status()).last_error).toBeNull()
        }),
        modelsInstance(fake.url, true)
      ))

    it.effect("refreshes from models.dev (200 with an ETag), then keeps the cache on a 304", () =>
      provide(Effect.gen(function*() {
        const models = yield* Models
        const body = acmeCatalog()
        fake.answer = { status: 200, body, etag: "\"v1\"", conditional: true }
        expect(yield* models.refresh()).toEqual({
          source: "remote",
          fetched_at: EPOCH,
          updated_at: EPOCH,
          etag: "\"v1\"",
          sha256: sha256Hex(body),
          provider_count: 2,
          model_count: 4,
          last_error: null
        })
        expect(fake.requests).toEqual([undefined])
        const { catalog } = yield* models.current()
        expect(Object.keys(catalog).sort()).toEqual(["acme", "builtin"])
        // Fields the gateway does not keep are dropped.
        expect(catalog.acme!.models["rocket-1"]).toEqual({
          id: "rocket-1",
          name: "Rocket 1",
          tool_call: true,
          cost: { input: 1, output: 4 },
          limit: { context: 64000, output: 4096 }
        })
        expect(yield* models.price("acme/rocket-1")).toEqual({ input: 1, output: 4 })
        expect(yield* models.price("acme/rocket-mini")).toBeUndefined()
        expect(yield* models.price("openai/gpt-4.1")).toBeUndefined()
        expect(yield* models.price("builtin/scripted")).toEqual({ input: 0, output: 0 })

        yield* TestClock.adjust(Duration.minutes(5))
        const after304 = yield* models.refresh()
        expect(fake.requests).toEqual([undefined, "\"v1\""])
        expect(after304).toMatchObject({ source: "remote", etag: "\"v1\"", sha256: sha256Hex(body), last_error: null, provider_count: 2 })
        expect(after304.fetched_at).toBe("1970-01-01T00:05:00.000Z")
        expect(after304.updated_at).toBe(EPOCH)

        // A new catalog under a new ETag replaces it.
        yield* TestClock.adjust(Duration.minutes(5))
        const newer = acmeCatalog(2)
        fake.answer = { status: 200, body: newer, etag: "\"v2\"", conditional: true }
        expect(yield* models.refresh()).toMatchObject({
          source: "remote",
          etag: "\"v2\"",
          sha256: sha256Hex(newer),
          updated_at: "1970-01-01T00:10:00.000Z"
        })
        expect(yield* models.price("acme/rocket-1")).toEqual({ input: 2, output: 8 })
        expect(usdMicros({ input: 2, output: 8 }, { input_tokens: 1000, output_tokens: 500 })).toBe(6000)
      })))

    it.effect("keeps the cache when a refresh fails: a 500, an invalid catalog, malformed JSON, unreachable", () =>
      provide(Effect.gen(function*() {
        const models = yield* Models
        fake.answer = { status: 500, body: "boom" }
        expect(yield* models.refresh()).toMatchObject({
          source: "bundled",
          provider_count: BUNDLED_PROVIDERS,
          last_error: `${fake.url}/api.json answered status 500`
        })
        expect(yield* models.price("openai/gpt-4.1-mini")).toEqual({ input: 0.4, output: 1.6, cache_read: 0.1 })

        fake.answer = { status: 200, body: acmeCatalog(), etag: "\"v1\"" }
        expect(yield* models.refresh()).toMatchObject({ source: "remote", last_error: null })

        fake.answer = { status: 500, body: "boom" }
        expect(yield* models.refresh()).toMatchObject({
          source: "cache",
          etag: "\"v1\"",
          provider_count: 2,
          last_error: `${fake.url}/api.json answered status 500`
        })
        expect(yield* models.price("acme/rocket-1")).toEqual({ input: 1, output: 4 })

        const invalid = JSON.stringify({ acme: { id: "acme", name: "Acme", env: [], models: { m: { id: "m", name: "M" } } } })
        fake.answer = { status: 200, body: invalid }
        const afterInvalid = yield* models.refresh()
        expect(afterInvalid).toMatchObject({ source: "cache", provider_count: 2 })
        expect(afterInvalid.last_error).toMatch(/^invalid catalog from http:\/\/127\.0\.0\.1:\d+\/api\.json: acme\.models\.m\.limit: missing required field$/)

        fake.answer = { status: 200, body: "{\"acme\": " }
        expect((yield* models.refresh()).last_error).toMatch(/^invalid catalog from .*: api\.json: malformed JSON/)
        fake.answer = { status: 200, body: "[1, 2]" }
        expect((yield* models.refresh()).last_error).toMatch(/^invalid catalog from .*: api\.json/)
        expect(yield* models.price("acme/rocket-1")).toEqual({ input: 1, output: 4 })

        // A success clears the error.
        fake.answer = { status: 200, body: acmeCatalog(), etag: "\"v1\"", conditional: true }
        expect(yield* models.refresh()).toMatchObject({ source: "remote", last_error: null })
      })))

    it.effect("reports an unreachable models.dev", () => {
      let closedPort = 0
      return provide(
        Effect.gen(function*() {
          const models = yield* Models
          const status = yield* models.refresh()
          expect(status.source).toBe("bundled")
          expect(status.last_error).toBe(`could not fetch http://127.0.0.1:${closedPort}/api.json: Transport error (GET http://127.0.0.1:${closedPort}/api.json): ECONNREFUSED`)
        }),
        Layer.unwrap(Effect.promise(async () => {
          closedPort = await freePort()
          return modelsInstance(`http://127.0.0.1:${closedPort}`)
        }))
      )
    })

    it.effect("gives up after 10 seconds without an answer (TestClock), keeping the cache", () =>
      provide(Effect.gen(function*() {
        const models = yield* Models
        fake.answer = { status: 200, body: acmeCatalog(), etag: "\"v1\"" }
        yield* models.refresh()
        fake.answer = { hang: true }
        const fiber = yield* Effect.forkChild(models.refresh())
        yield* waitFor(2)
        yield* TestClock.adjust(Duration.seconds(9))
        expect(fiber.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust(Duration.seconds(1))
        const status = yield* Fiber.join(fiber)
        expect(status).toMatchObject({ source: "cache", provider_count: 2, last_error: `${fake.url}/api.json did not answer within 10s` })
        fake.release()
      })))

    it.effect("runs one refresh at a time: two instances on one database make one fetch", () =>
      Effect.gen(function*() {
        const shared = yield* Layer.build(liveClockDb(db.make()))
        const a = yield* Layer.build(modelsInstance(fake.url)).pipe(Effect.provideContext(shared))
        const b = yield* Layer.build(modelsInstance(fake.url)).pipe(Effect.provideContext(shared))
        const modelsA = Context.get(a, Models)
        const modelsB = Context.get(b, Models)
        fake.answer = { status: 200, body: acmeCatalog(), etag: "\"v1\"", hang: true }
        const fiberA = yield* Effect.forkChild(modelsA.refresh())
        yield* waitFor(1)
        // B finds the lease taken: no second fetch, the status it has.
        expect(yield* modelsB.refresh()).toMatchObject({ source: "bundled", last_error: null })
        expect(fake.requests).toHaveLength(1)
        fake.release()
        expect(yield* Fiber.join(fiberA)).toMatchObject({ source: "remote", provider_count: 2 })
        // B serves what A stored.
        expect(yield* modelsB.status()).toMatchObject({ source: "remote", etag: "\"v1\"", provider_count: 2 })
        expect(yield* modelsB.price("acme/rocket-1")).toEqual({ input: 1, output: 4 })
        // The lease was let go: B refreshes now (a conditional request).
        fake.answer = { status: 200, body: acmeCatalog(), etag: "\"v1\"", conditional: true }
        expect(yield* modelsB.refresh()).toMatchObject({ source: "remote" })
        expect(fake.requests).toEqual([undefined, "\"v1\""])
      }).pipe(Effect.scoped))

    it.effect("shares one running refresh between concurrent calls in one instance", () =>
      provide(Effect.gen(function*() {
        const models = yield* Models
        fake.answer = { status: 200, body: acmeCatalog(), etag: "\"v1\"", hang: true }
        const fibers = yield* Effect.forEach([1, 2, 3], () => Effect.forkChild(models.refresh()))
        yield* waitFor(1)
        fake.release()
        const statuses = yield* Effect.forEach(fibers, Fiber.join)
        expect(fake.requests).toHaveLength(1)
        for (const s of statuses) expect(s).toMatchObject({ source: "remote", provider_count: 2 })
      })))

    it.effect("takes an expired lease, never a held one", () =>
      provide(
        Effect.gen(function*() {
          const repo = yield* ModelsRepo
          const at = (s: number) => new Date(s * 1000).toISOString()
          expect(yield* repo.acquireLease("one", at(0), at(60))).toBe(true)
          expect(yield* repo.acquireLease("two", at(1), at(61))).toBe(false)
          expect(yield* repo.acquireLease("two", at(60), at(120))).toBe(true)
          yield* repo.releaseLease("one", at(61))
          expect(yield* repo.acquireLease("three", at(61), at(121))).toBe(false)
          yield* repo.releaseLease("two", at(62))
          expect(yield* repo.acquireLease("three", at(62), at(122))).toBe(true)
        }),
        ModelsRepo.layer
      ))

    it.effect("refreshes in the background at start without waiting, then hourly", () =>
      provide(
        Effect.gen(function*() {
          const models = yield* Models
          // Start-up did not wait for the held request: the status answers from the bundled snapshot.
          yield* waitFor(1)
          expect(yield* models.status()).toMatchObject({ source: "bundled" })
          fake.release()
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
          let status = yield* models.status()
          for (let i = 0; i < 100 && status.source !== "remote"; i++) {
            yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
            status = yield* models.status()
          }
          expect(status).toMatchObject({ source: "remote", etag: "\"v1\"" })
          fake.answer = { status: 200, body: acmeCatalog(), etag: "\"v1\"", conditional: true }
          yield* TestClock.adjust(Duration.minutes(59))
          expect(fake.requests).toHaveLength(1)
          // The next run is an hour after the first one ended (which may be a moment after its status was stored).
          for (let i = 0; i < 100 && fake.requests.length < 2; i++) {
            yield* TestClock.adjust(Duration.minutes(1))
            yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
          }
          expect(fake.requests).toEqual([undefined, "\"v1\""])
        }),
        Layer.unwrap(Effect.sync(() => {
          fake.answer = { status: 200, body: acmeCatalog(), etag: "\"v1\"", hang: true }
          return modelsInstance(fake.url, false, true)
        }))
      ))
  })
}
