/**
 * The DomainEvents port (services/domain-events; docs/architecture.md
 * "Cross-subsystem reactions: DomainEvents") on every test database: a
 * transactional subscriber commits or rolls back with the publisher's write,
 * after-commit reactions run only once the write committed (before the
 * transaction returns), and PubSub subscribers hear committed events in order.
 */
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Layer, Ref } from "effect"
import { SqlClient } from "effect/sql"
import { DomainEvent, DomainEvents } from "../../../services/domain-events/DomainEvents.ts"
import { testDatabases } from "../../support/databases.ts"

const Noted = DomainEvent.make<{ readonly note: string }>("test.noted")
const Other = DomainEvent.make<{ readonly note: string }>("test.other")

class Boom {
  readonly _tag = "Boom"
}

for (const db of testDatabases) {
  layer(DomainEvents.layer.pipe(Layer.provideMerge(db.layer)))(`DomainEvents on ${db.name}`, (it) => {
    const setup = Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const events = yield* DomainEvents
      const table = `notes_${Math.random().toString(36).slice(2, 10)}`
      yield* sql.unsafe(`CREATE TABLE ${table} (note TEXT NOT NULL)`)
      const notes = Effect.map(sql.unsafe<{ note: string }>(`SELECT note FROM ${table} ORDER BY note`), (rows) => rows.map((r) => r.note))
      const insert = (note: string) => sql.unsafe(`INSERT INTO ${table} (note) VALUES ('${note}')`)
      return { sql, events, notes, insert }
    })

    it.effect("a transactional subscriber writes in the publisher's transaction and rolls back with it", () =>
      Effect.gen(function*() {
        const { sql, events, notes, insert } = yield* setup
        yield* events.inTransaction(Noted, ({ note }) => Effect.orDie(Effect.asVoid(insert(`audit:${note}`))))

        yield* sql.withTransaction(Effect.andThen(insert("kept"), events.publish(Noted, { note: "kept" })))
        const failed = yield* sql.withTransaction(Effect.gen(function*() {
          yield* insert("lost")
          yield* events.publish(Noted, { note: "lost" })
          return yield* Effect.fail(new Boom())
        })).pipe(Effect.flip)

        expect(failed).toBeInstanceOf(Boom)
        expect(yield* notes).toEqual(["audit:kept", "kept"])
      }))

    it.effect("a failing transactional subscriber fails the publication and rolls the write back", () =>
      Effect.gen(function*() {
        const { sql, events, notes, insert } = yield* setup
        yield* events.inTransaction(Other, () => Effect.die(new Error("subscriber broke")))
        const exit = yield* sql.withTransaction(Effect.andThen(insert("decided"), events.publish(Other, { note: "x" }))).pipe(Effect.exit)
        expect(exit._tag).toBe("Failure")
        expect(yield* notes).toEqual([])
      }))

    it.effect("after-commit reactions run once committed, before the transaction returns, never for a rollback", () =>
      Effect.gen(function*() {
        const { sql, events, notes, insert } = yield* setup
        const seen = yield* Ref.make<ReadonlyArray<string>>([])
        yield* events.afterCommit(Noted, ({ note }) =>
          // The reaction sees the committed row (it runs outside the transaction, after COMMIT).
          Effect.flatMap(Effect.orDie(notes), (rows) => Ref.update(seen, (all) => [...all, `${note}:${rows.join(",")}`])))

        const during = yield* sql.withTransaction(Effect.gen(function*() {
          yield* insert("a")
          yield* events.publish(Noted, { note: "a" })
          return yield* Ref.get(seen)
        }))
        expect(during).toEqual([])
        expect(yield* Ref.get(seen)).toEqual(["a:a"])

        yield* sql.withTransaction(Effect.gen(function*() {
          yield* insert("b")
          yield* events.publish(Noted, { note: "b" })
          return yield* Effect.fail(new Boom())
        })).pipe(Effect.ignore)
        expect(yield* Ref.get(seen)).toEqual(["a:a"])

        // Outside a transaction: at once.
        yield* events.publish(Noted, { note: "c" })
        expect(yield* Ref.get(seen)).toEqual(["a:a", "c:a"])
      }))

    it.effect("a failing after-commit reaction is logged, never the publisher's failure; later reactions still run", () =>
      Effect.gen(function*() {
        const { events } = yield* setup
        const Failing = DomainEvent.make<number>("test.failing")
        const seen = yield* Ref.make<ReadonlyArray<number>>([])
        yield* events.afterCommit(Failing, () => Effect.die(new Error("reaction broke")))
        yield* events.afterCommit(Failing, (n) => Ref.update(seen, (all) => [...all, n]))
        yield* events.publish(Failing, 7)
        expect(yield* Ref.get(seen)).toEqual([7])
      }))

    it.effect("PubSub subscribers hear committed events in order, never rolled-back ones", () =>
      Effect.gen(function*() {
        const { sql, events } = yield* setup
        const Ended = DomainEvent.make<string>("test.ended")
        const heard: Array<string> = []
        const third = yield* Deferred.make<void>()
        yield* events.subscribe(Ended, (id) =>
          Effect.suspend(() => {
            heard.push(id)
            return id === "run-3" ? Deferred.succeed(third, undefined) : Effect.void
          }))
        yield* sql.withTransaction(events.publish(Ended, "run-1"))
        yield* sql.withTransaction(Effect.andThen(events.publish(Ended, "run-2"), Effect.fail(new Boom()))).pipe(Effect.ignore)
        yield* events.publish(Ended, "run-3")
        yield* Deferred.await(third)
        expect(heard).toEqual(["run-1", "run-3"])
      }))
  })
}
