/**
 * Wake-ups of the queue workers (services/backplane/wakes.ts): in one process
 * a wake-up reaches the subscribers of its topic only; with `SVC_CLUSTER=1` on
 * PostgreSQL a wake-up sent by instance A reaches a subscriber on instance B
 * (two clients on one schema), a wake-up inside a rolled-back transaction is
 * never sent to B, and a deployment in another schema hears nothing. The
 * keyed worker (services/shared/keyedWorker.ts) drains a key woken on another
 * instance at once, without waiting for its rescan.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Exit, Layer, Option, Queue, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { BackplaneMode } from "../../../services/backplane/mode.ts"
import { Wakes } from "../../../services/backplane/wakes.ts"
import { makeKeyedWorker } from "../../../services/shared/keyedWorker.ts"
import { postgresUrl, sharedPostgresSchema } from "../../support/databases.ts"

/** The next key of `queue` within a generous real-time deadline, or none. */
const next = (queue: Queue.Dequeue<string>, within: Duration.Input = "10 seconds") =>
  Effect.timeoutOption(Queue.take(queue), within)

describe("Wakes.layerLocal", () => {
  it.live("a wake-up reaches the subscribers of its topic only", () =>
    Effect.scoped(Effect.gen(function*() {
      const wakes = yield* Layer.build(Wakes.layerLocal).pipe(Effect.map(Context.get(Wakes)))
      const inbox = yield* wakes.subscribe("inbox")
      const other = yield* wakes.subscribe("subagents")
      yield* wakes.wake("inbox", "lane-1")
      expect(yield* next(inbox)).toEqual(Option.some("lane-1"))
      expect(yield* next(other, "50 millis")).toEqual(Option.none())
    })))
})

let shared: Awaited<ReturnType<typeof sharedPostgresSchema>> | undefined

/** One clustered instance on the shared schema (its own pool): its wake-ups and SQL client. */
const instance = (schema = shared!): Effect.Effect<{ readonly wakes: Wakes["Service"]; readonly sql: SqlClient.SqlClient }, unknown, Scope.Scope> =>
  Effect.map(
    Layer.build(Wakes.layer.pipe(Layer.provideMerge(schema.layer()), Layer.provide(Layer.succeed(BackplaneMode, { cluster: true, role: "all" })))),
    (context) => ({ wakes: Context.get(context, Wakes), sql: Context.get(context, SqlClient.SqlClient) })
  )

describe.skipIf(postgresUrl === undefined)("Wakes.layer with SVC_CLUSTER=1", () => {
  beforeEach(async () => {
    shared = await sharedPostgresSchema(postgresUrl!)
  })
  afterEach(async () => {
    await shared?.drop()
  })

  it.live("a wake-up on A reaches B; one in a rolled-back transaction does not; another schema hears nothing", () =>
    Effect.scoped(Effect.gen(function*() {
      const a = yield* instance()
      const b = yield* instance()
      const elsewhere = yield* Effect.acquireRelease(Effect.promise(() => sharedPostgresSchema(postgresUrl!)), (s) => Effect.promise(() => s.drop()))
      const c = yield* instance(elsewhere)
      const onB = yield* b.wakes.subscribe("messenger inbox worker")
      const onC = yield* c.wakes.subscribe("messenger inbox worker")
      // Each instance's layer is built once its LISTEN is confirmed.
      const rolledBack = yield* Effect.exit(a.sql.withTransaction(Effect.andThen(
        a.wakes.wake("messenger inbox worker", "lost-lane"),
        Effect.fail("rollback")
      )))
      expect(Exit.isFailure(rolledBack)).toBe(true)
      yield* a.wakes.wake("messenger inbox worker", "telegram:chat-9")
      expect(yield* next(onB)).toEqual(Option.some("telegram:chat-9"))
      expect(yield* next(onC, "300 millis")).toEqual(Option.none())
    })))

  it.live("a keyed worker on B drains a key stored and woken on A at once (not at its 30 s rescan)", () =>
    Effect.scoped(Effect.gen(function*() {
      const a = yield* instance()
      const b = yield* instance()
      const stored = new Map<string, Array<string>>()
      const ran: Array<string> = []
      const options = {
        name: "test queue",
        keyLabel: "key",
        next: (key: string) => Effect.sync(() => stored.get(key)?.[0]),
        run: (key: string, item: string) => Effect.sync(() => {
          stored.get(key)!.shift()
          ran.push(`${key}:${item}`)
        }),
        pendingKeys: Effect.succeed([]),
        rescanInterval: Duration.seconds(30)
      }
      const onA = yield* makeKeyedWorker({ ...options, wakes: a.wakes })
      const onB = yield* makeKeyedWorker({ ...options, wakes: b.wakes })
      // Only B runs the worker (a cluster singleton); A only stores and wakes.
      yield* Effect.forkScoped(onB.worker)
      stored.set("lane", ["first", "second"])
      // Woken again until B's worker has subscribed (repeated wake-ups of a key are harmless); each item runs once.
      const deadline = Date.now() + 10_000
      while (ran.length < 2 && Date.now() < deadline) {
        yield* onA.wake("lane")
        yield* Effect.sleep("100 millis")
      }
      expect(ran).toEqual(["lane:first", "lane:second"])
    })))
})
