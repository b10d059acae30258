/**
 * Wake-ups for the durable queue workers (services/shared/keyedWorker.ts) of
 * every instance (docs/scaling.md "Queues across instances"). A worker that
 * runs as a cluster singleton lives on one instance, while the item it must
 * run may be stored by any: without a wake-up across instances it would find
 * the item only at its next rescan (30 s).
 *
 * - {@link Wakes.wake} `(topic, key)` tells the workers of `topic` on every
 *   instance that `key` has work. It is a hint, not a delivery: the item is
 *   in the caller's table, and the workers' periodic rescan remains the
 *   fallback for a lost wake-up.
 * - {@link Wakes.subscribe} `(topic)` gives the keys woken from now on.
 *
 * In one process (the default) a wake-up is an in-memory `PubSub`. With
 * `SVC_CLUSTER=1` it is also a PostgreSQL `NOTIFY` on {@link WAKE_CHANNEL}
 * (payload `<schema>␟<topic>␟<key>`, parts separated by U+001F, so deployments in other schemas
 * ignore it), sent on the caller's connection: inside a transaction it goes
 * out at commit, when the item is visible. Each instance `LISTEN`s on one
 * connection (the layer is built once `LISTEN` is confirmed) and re-listens
 * after a failure.
 *
 * @module
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import { Cause, Context, Deferred, Effect, Layer, Predicate, PubSub, Queue, Schedule, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { BackplaneMode } from "./mode.ts"
import { makeOutboxRepo } from "./OutboxRepo.ts"

/** The channel every clustered instance `LISTEN`s on for wake-ups. */
export const WAKE_CHANNEL = "svc_wake"

/** How long the build waits for PostgreSQL to confirm `LISTEN`. */
const LISTEN_CONFIRM_TIMEOUT = "5 seconds"

/** How long to wait before listening again after the `LISTEN` connection failed. */
const RELISTEN_INTERVAL = "1 second"

interface Wakeup {
  readonly topic: string
  readonly key: string
}

interface Hub {
  readonly publish: (wakeup: Wakeup) => Effect.Effect<void>
  readonly service: Wakes["Service"]
}

/** The in-process part: one `PubSub` of wake-ups, filtered by topic per subscriber. */
const makeHub: Effect.Effect<Hub, never, Scope.Scope> = Effect.suspend(() =>
  Effect.gen(function*() {
    const pubsub = yield* Effect.acquireRelease(PubSub.unbounded<Wakeup>(), PubSub.shutdown)
    const publish = (wakeup: Wakeup) => Effect.asVoid(PubSub.publish(pubsub, wakeup))
    const subscribe = (topic: string) =>
      Effect.gen(function*() {
        const subscription = yield* PubSub.subscribe(pubsub)
        const keys = yield* Queue.unbounded<string>()
        yield* Effect.forkScoped(Effect.forever(Effect.flatMap(PubSub.take(subscription), (wakeup) =>
          wakeup.topic === topic ? Queue.offer(keys, wakeup.key) : Effect.void
        )))
        return keys as Queue.Dequeue<string>
      })
    return { publish, service: Wakes.of({ wake: (topic, key) => publish({ topic, key }), subscribe }) }
  }))

/** Between the payload's parts: a character no schema, topic or key holds (PostgreSQL refuses NUL in text). */
const SEPARATOR = "\u001f"

/** Across instances: `NOTIFY` on the caller's connection, one `LISTEN` fiber feeding the hub. */
const clustered = (sql: SqlClient.SqlClient, pg: PgClient.PgClient, hub: Hub) =>
  Effect.gen(function*() {
    // NOTIFY reaches every schema of the database: payloads name the schema, so deployments in other schemas are ignored.
    const schema = yield* makeOutboxRepo(sql).currentSchema
    const prefix = `${schema}${SEPARATOR}`
    const listening = yield* Deferred.make<void>()
    const listenOnce = Effect.scoped(Effect.gen(function*() {
      const notifications = yield* pg.listen(WAKE_CHANNEL)
      yield* Deferred.succeed(listening, undefined)
      while (true) {
        const { payload } = yield* Queue.take(notifications)
        if (!payload.startsWith(prefix)) continue
        const rest = payload.slice(prefix.length)
        const at = rest.indexOf(SEPARATOR)
        if (at > 0) yield* hub.publish({ topic: rest.slice(0, at), key: rest.slice(at + 1) })
      }
    }))
    yield* Effect.forkScoped(listenOnce.pipe(
      Effect.catchCause((cause) =>
        Effect.logWarning("wake-ups: LISTEN ended; queues are rescanned until it is back").pipe(
          Effect.annotateLogs({ cause: Cause.pretty(cause) })
        )
      ),
      Effect.repeat(Schedule.spaced(RELISTEN_INTERVAL))
    ))
    // Built once it listens (one round trip), so a wake-up sent after the build is heard; a database that does not
    // confirm LISTEN in time does not hold the start (the rescan covers the gap).
    yield* Effect.timeoutOption(Deferred.await(listening), LISTEN_CONFIRM_TIMEOUT)
    const wake = (topic: string, key: string): Effect.Effect<void> =>
      // This instance's workers at once; the others when the NOTIFY is delivered (at commit inside a transaction).
      Effect.andThen(
        hub.publish({ topic, key }),
        sql`SELECT pg_notify(${WAKE_CHANNEL}, ${`${prefix}${topic}${SEPARATOR}${key}`})`.pipe(
          Effect.catchCause((cause) =>
            Effect.logWarning("wake-ups: NOTIFY failed; the other instances find the work at their next rescan").pipe(
              Effect.annotateLogs({ topic, cause: Cause.pretty(cause) })
            )
          ),
          Effect.asVoid
        )
      )
    return Wakes.of({ wake, subscribe: hub.service.subscribe })
  })

/** Wake-ups for the queue workers of every instance (see the module doc). */
export class Wakes extends Context.Service<Wakes, {
  /** Tells the workers of `topic` on every instance that `key` has work. Never fails (a lost wake-up waits for the rescan). */
  readonly wake: (topic: string, key: string) => Effect.Effect<void>
  /** The keys of `topic` woken from now on, for the current scope. */
  readonly subscribe: (topic: string) => Effect.Effect<Queue.Dequeue<string>, never, Scope.Scope>
}>()("svc-gateway/backplane/Wakes") {
  /** In-process wake-ups only (one instance). */
  static readonly layerLocal: Layer.Layer<Wakes> = Layer.effect(Wakes, Effect.map(makeHub, (hub) => hub.service))

  /**
   * By {@link BackplaneMode}: PostgreSQL `NOTIFY`/`LISTEN` across instances with `SVC_CLUSTER=1` (over the graph's
   * `SqlClient`), else {@link Wakes.layerLocal}.
   */
  static readonly layer: Layer.Layer<Wakes> = Layer.effect(
    Wakes,
    Effect.gen(function*() {
      const mode = yield* BackplaneMode
      const hub = yield* makeHub
      if (!mode.cluster) return hub.service
      const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
      if (sql._tag === "None" || !Predicate.isFunction((sql.value as unknown as Partial<PgClient.PgClient>).listen)) return hub.service
      return yield* clustered(sql.value, sql.value as unknown as PgClient.PgClient, hub)
    })
  )
}
