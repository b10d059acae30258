/**
 * One conformance suite for every storage backend: SQLite in memory, SQLite
 * in a file (WAL), and PostgreSQL when SVC_TEST_DATABASE_URL is set.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as SqlClient from "effect/sql/SqlClient"
import { migrate, type Migration, migrationsTable } from "../../../layers/storage/migrations.ts"
import { DatabaseInfo } from "../../../layers/storage/Storage.ts"
import { authMigrations } from "../../../services/auth/migrations/index.ts"
import { postgres, sqliteFile, sqliteMemory, type TestDatabase } from "../../support/databases.ts"

const nonEmpty = <A>(items: ReadonlyArray<A>): readonly [A, ...Array<A>] => {
  assert.isAbove(items.length, 0)
  return items as readonly [A, ...Array<A>]
}

let tableCounter = 0
/** A table name unique within this test file. */
const uniqueName = (base: string) => `${base}_${++tableCounter}`

/** Creates a table from per-dialect column lists and returns its name. */
const createTable = (base: string, columns: { readonly sqlite: string; readonly pg: string }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const name = uniqueName(base)
    const definition = sql.onDialectOrElse({ pg: () => columns.pg, orElse: () => columns.sqlite })
    yield* sql.unsafe(`CREATE TABLE ${name} (${definition})`)
    return name
  })

const countRows = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly n: unknown }>`SELECT COUNT(*) AS n FROM ${sql(table)}`
    return Number(rows[0].n)
  })

const names = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly name: string }>`SELECT name FROM ${sql(table)} ORDER BY name`
    return rows.map((row) => row.name)
  })

const itemsTable = () => createTable("items", { sqlite: "id INTEGER PRIMARY KEY, name TEXT NOT NULL", pg: "id SERIAL PRIMARY KEY, name TEXT NOT NULL" })

const brokenMigration = (id: number, okTable: string): Migration => ({
  id,
  name: "broken",
  sqlite: `CREATE TABLE ${okTable} (id INTEGER); CREATE TABLE (;`,
  postgres: `CREATE TABLE ${okTable} (id INTEGER); CREATE TABLE (;`
})

const tableExists = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql`SELECT 1 FROM ${sql(table)}`.pipe(Effect.as(true), Effect.catch(() => Effect.succeed(false)))
  })

const conformance = (db: TestDatabase) =>
  layer(db.layer, { excludeTestServices: true })(db.name, (it) => {
    it.effect("reports the database it uses", () =>
      Effect.gen(function*() {
        const info = yield* DatabaseInfo
        assert.strictEqual(info.kind, db.kind)
        assert.notInclude(info.location, "password")
      }))

    it.effect("commits a transaction", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const table = yield* itemsTable()
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO ${sql(table)} ${sql.insert({ name: "a" })}`
          yield* sql`INSERT INTO ${sql(table)} ${sql.insert({ name: "b" })}`
        }))
        assert.deepStrictEqual(yield* names(table), ["a", "b"])
      }))

    it.effect("rolls back a failed transaction", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const table = yield* itemsTable()
        const error = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO ${sql(table)} ${sql.insert({ name: "a" })}`
          return yield* Effect.fail("boom" as const)
        })).pipe(Effect.flip)
        assert.strictEqual(error, "boom")
        assert.strictEqual(yield* countRows(table), 0)
        // The connection is usable again afterwards.
        yield* sql`INSERT INTO ${sql(table)} ${sql.insert({ name: "after" })}`
        assert.deepStrictEqual(yield* names(table), ["after"])
      }))

    it.effect("nests transactions with savepoints", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const table = yield* itemsTable()
        const insert = (name: string) => sql`INSERT INTO ${sql(table)} ${sql.insert({ name })}`
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* insert("outer")
          const inner = yield* sql.withTransaction(Effect.andThen(insert("rolled back"), Effect.fail("inner" as const)))
            .pipe(Effect.flip)
          assert.strictEqual(inner, "inner")
          yield* sql.withTransaction(sql.withTransaction(insert("kept")))
        }))
        assert.deepStrictEqual(yield* names(table), ["kept", "outer"])

        // A failure after a committed savepoint still rolls back everything.
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql.withTransaction(insert("savepoint"))
          return yield* Effect.fail("outer" as const)
        })).pipe(Effect.flip)
        assert.deepStrictEqual(yield* names(table), ["kept", "outer"])
      }))

    it.effect("returns rows with RETURNING", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const table = yield* itemsTable()
        const inserted = yield* sql<{ id: number; name: string }>`
          INSERT INTO ${sql(table)} ${sql.insert([{ name: "a" }, { name: "b" }])} RETURNING id, name`
        assert.deepStrictEqual(inserted.map((row) => row.name), ["a", "b"])
        assert.notStrictEqual(inserted[0].id, inserted[1].id)
        const updated = yield* sql<{ name: string }>`
          UPDATE ${sql(table)} SET name = ${"c"} WHERE id = ${inserted[0].id} RETURNING name`
        assert.deepStrictEqual(updated, [{ name: "c" }])
        const deleted = yield* sql<{ id: number }>`DELETE FROM ${sql(table)} WHERE name = ${"b"} RETURNING id`
        assert.strictEqual(Number(deleted[0].id), Number(inserted[1].id))
      }))

    it.effect("upserts with ON CONFLICT", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const table = yield* createTable("kv", {
          sqlite: "k TEXT PRIMARY KEY, v TEXT NOT NULL, hits INTEGER NOT NULL DEFAULT 1",
          pg: "k TEXT PRIMARY KEY, v TEXT NOT NULL, hits INTEGER NOT NULL DEFAULT 1"
        })
        const upsert = (k: string, v: string) =>
          sql<{ v: string; hits: number }>`
            INSERT INTO ${sql(table)} (k, v) VALUES (${k}, ${v})
            ON CONFLICT (k) DO UPDATE SET v = excluded.v, hits = ${sql(table)}.hits + 1
            RETURNING v, hits`
        assert.deepStrictEqual(yield* upsert("x", "1"), [{ v: "1", hits: 1 }])
        assert.deepStrictEqual(yield* upsert("x", "2"), [{ v: "2", hits: 2 }])
        const ignored = yield* sql`INSERT INTO ${sql(table)} (k, v) VALUES (${"x"}, ${"3"}) ON CONFLICT (k) DO NOTHING RETURNING v`
        assert.deepStrictEqual(ignored, [])
        assert.strictEqual(yield* countRows(table), 1)
      }))

    it.effect("classifies unique and foreign key violations", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const parent = yield* createTable("parent", { sqlite: "id TEXT PRIMARY KEY, u TEXT UNIQUE", pg: "id TEXT PRIMARY KEY, u TEXT UNIQUE" })
        const child = yield* createTable("child", {
          sqlite: `id TEXT PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES ${parent} (id)`,
          pg: `id TEXT PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES ${parent} (id)`
        })
        yield* sql`INSERT INTO ${sql(parent)} ${sql.insert({ id: "p1", u: "u1" })}`
        const duplicateKey = yield* sql`INSERT INTO ${sql(parent)} ${sql.insert({ id: "p1", u: "u2" })}`.pipe(Effect.flip)
        assert.strictEqual(duplicateKey.reason._tag, "UniqueViolation")
        const duplicateUnique = yield* sql`INSERT INTO ${sql(parent)} ${sql.insert({ id: "p2", u: "u1" })}`.pipe(Effect.flip)
        assert.strictEqual(duplicateUnique.reason._tag, "UniqueViolation")
        const orphan = yield* sql`INSERT INTO ${sql(child)} ${sql.insert({ id: "c1", parent_id: "nope" })}`.pipe(Effect.flip)
        assert.strictEqual(orphan.reason._tag, "ConstraintError")
      }))

    it.effect("round-trips 64-bit integers", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const table = yield* createTable("bigints", { sqlite: "id INTEGER PRIMARY KEY, v INTEGER NOT NULL", pg: "id INTEGER PRIMARY KEY, v BIGINT NOT NULL" })
        const values = [9223372036854775807n, -9223372036854775808n, 9007199254740993n, 42n]
        yield* sql`INSERT INTO ${sql(table)} ${sql.insert(nonEmpty(values.map((v, id) => ({ id, v }))))}`
        const rows = yield* sql<{ v: number | bigint }>`SELECT v FROM ${sql(table)} ORDER BY id`
        assert.deepStrictEqual(rows.map((row) => BigInt(row.v)), values)
        // Values beyond 2^53 are never rounded into a number.
        for (const row of rows.slice(0, 3)) assert.strictEqual(typeof row.v, "bigint")
        const found = yield* sql<{ id: number }>`SELECT id FROM ${sql(table)} WHERE v = ${9007199254740993n}`
        assert.deepStrictEqual(found.map((row) => Number(row.id)), [2])
        // SafeIntegers asks for bigint everywhere.
        const safe = yield* sql<{ v: unknown }>`SELECT v FROM ${sql(table)} WHERE id = ${3}`.pipe(
          Effect.provideService(SqlClient.SafeIntegers, true)
        )
        assert.strictEqual(safe[0].v, 42n)
      }))

    it.effect("binds and reads booleans", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const table = yield* createTable("flags", { sqlite: "id INTEGER PRIMARY KEY, flag INTEGER NOT NULL", pg: "id INTEGER PRIMARY KEY, flag BOOLEAN NOT NULL" })
        yield* sql`INSERT INTO ${sql(table)} ${sql.insert([{ id: 1, flag: true }, { id: 2, flag: false }])}`
        const on = yield* sql<{ id: number }>`SELECT id FROM ${sql(table)} WHERE flag = ${true}`
        assert.deepStrictEqual(on.map((row) => Number(row.id)), [1])
        const rows = yield* sql<{ flag: unknown }>`SELECT flag FROM ${sql(table)} ORDER BY id`
        // SQLite has no boolean type: 1/0 there, true/false on PostgreSQL.
        assert.deepStrictEqual(rows.map((row) => Number(row.flag)), [1, 0])
      }))

    it.effect("stores JSON as text", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const table = yield* createTable("docs", { sqlite: "id INTEGER PRIMARY KEY, doc TEXT NOT NULL", pg: "id INTEGER PRIMARY KEY, doc TEXT NOT NULL" })
        const doc = { scopes: ["read", "write"], nested: { list: [1, 2, 3] }, text: "héllo ✓ \"quoted\" 'single'" }
        yield* sql`INSERT INTO ${sql(table)} ${sql.insert({ id: 1, doc: JSON.stringify(doc) })}`
        const rows = yield* sql<{ doc: string }>`SELECT doc FROM ${sql(table)} WHERE id = ${1}`
        assert.deepStrictEqual(JSON.parse(rows[0].doc), doc)
        const extracted = yield* sql.onDialectOrElse({
          pg: () => sql<{ x: unknown }>`SELECT (doc::jsonb #>> '{nested,list,1}') AS x FROM ${sql(table)}`,
          orElse: () => sql<{ x: unknown }>`SELECT json_extract(doc, '$.nested.list[1]') AS x FROM ${sql(table)}`
        })
        assert.strictEqual(Number(extracted[0].x), 2)
      }))

    it.effect("streams rows", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const table = yield* createTable("many", { sqlite: "id INTEGER PRIMARY KEY, name TEXT NOT NULL", pg: "id INTEGER PRIMARY KEY, name TEXT NOT NULL" })
        const count = 1234
        yield* sql.withTransaction(
          sql`INSERT INTO ${sql(table)} ${sql.insert(nonEmpty(Array.from({ length: count }, (_, id) => ({ id, name: `n${id}` }))))}`
        )
        const all = yield* Stream.runCollect(sql<{ id: number }>`SELECT id FROM ${sql(table)} ORDER BY id`.stream)
        assert.strictEqual(all.length, count)
        assert.deepStrictEqual(all.map((row) => Number(row.id)), Array.from({ length: count }, (_, id) => id))
        // Stopping early releases the connection for the next statement.
        const firstThree = yield* Stream.runCollect(
          Stream.take(sql<{ id: number }>`SELECT id FROM ${sql(table)} ORDER BY id`.stream, 3)
        )
        assert.deepStrictEqual(firstThree.map((row) => Number(row.id)), [0, 1, 2])
        assert.strictEqual(yield* countRows(table), count)
        // Streams also run inside a transaction.
        const inTransaction = yield* sql.withTransaction(
          Stream.runCollect(sql`SELECT id FROM ${sql(table)} WHERE id < ${10}`.stream)
        )
        assert.strictEqual(inTransaction.length, 10)
      }))

    it.effect("runs a subsystem's migrations idempotently, in its own bookkeeping table", () =>
      Effect.gen(function*() {
        const subsystem = uniqueName("auth_copy")
        const first = yield* migrate(subsystem, authMigrations)
        assert.deepStrictEqual(first, authMigrations.map((migration) => [migration.id, migration.name] as const))
        const second = yield* migrate(subsystem, authMigrations)
        assert.deepStrictEqual(second, [])
        assert.isTrue(yield* tableExists(migrationsTable(subsystem)))
        const sql = yield* SqlClient.SqlClient
        const token = {
          token_id: "t1",
          token_digest: "a".repeat(64),
          device_id: "d1",
          role: "operator",
          scopes: JSON.stringify(["read"]),
          issued_at: new Date(0).toISOString(),
          expires_at: null,
          revoked_at: null
        }
        yield* sql`INSERT INTO device_tokens ${sql.insert(token)}`
        const rows = yield* sql`SELECT * FROM device_tokens WHERE device_id = ${"d1"}`
        assert.deepStrictEqual(rows, [token])
        const duplicate = yield* sql`INSERT INTO device_tokens ${sql.insert({ ...token, token_id: "t2" })}`.pipe(Effect.flip)
        assert.strictEqual(duplicate.reason._tag, "UniqueViolation")
        // A second subsystem whose migrations create the same table (IF NOT EXISTS) keeps its own ids.
        assert.deepStrictEqual(yield* migrate(uniqueName("other"), authMigrations), [[1, "device_tokens"]])
      }).pipe(Effect.provide(db.make())))

    it.effect("reports a failing migration as MigrationFailed naming it, and rolls the batch back", () =>
      Effect.gen(function*() {
        const okTable = uniqueName("half_done")
        const subsystem = uniqueName("broken")
        const error = yield* migrate(subsystem, [brokenMigration(9001, okTable)]).pipe(Effect.flip)
        assert.strictEqual(error._tag, "MigrationFailed")
        assert.strictEqual(error.migration, "9001_broken")
        assert.include(error.message, `Migration ${subsystem}/9001_broken failed`)
        assert.isFalse(yield* tableExists(okTable))
        assert.deepStrictEqual(yield* migrate(subsystem, []), [])
      }))

    it.effect("keeps other fibers out of an open transaction", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const table = yield* itemsTable()
        const insert = (name: string) => sql`INSERT INTO ${sql(table)} ${sql.insert({ name })}`
        const started = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()

        const transaction = yield* sql.withTransaction(Effect.gen(function*() {
          yield* insert("inside-1")
          yield* Deferred.succeed(started, undefined)
          yield* Deferred.await(release)
          yield* insert("inside-2")
          return yield* Effect.fail("abort" as const)
        })).pipe(Effect.exit, Effect.forkChild)

        yield* Deferred.await(started)
        // Outside the transaction: must neither see its rows nor join it.
        const outsider = yield* Effect.gen(function*() {
          yield* insert("outside")
          return yield* names(table)
        }).pipe(Effect.forkChild)
        yield* Effect.sleep("50 millis")
        yield* Deferred.succeed(release, undefined)

        const exit = yield* Fiber.join(transaction)
        assert.isTrue(Exit.isFailure(exit))
        const seen = yield* Fiber.join(outsider)
        assert.deepStrictEqual(seen, ["outside"])
        // The outsider's write survived the rollback, so it was not part of it.
        assert.deepStrictEqual(yield* names(table), ["outside"])
      }))

    it.effect("keeps concurrent transactions apart", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const table = yield* itemsTable()
        const run = (prefix: string, fail: boolean) =>
          sql.withTransaction(Effect.gen(function*() {
            for (let i = 0; i < 5; i++) {
              yield* sql`INSERT INTO ${sql(table)} ${sql.insert({ name: `${prefix}${i}` })}`
              yield* Effect.yieldNow
            }
            if (fail) return yield* Effect.fail("abort" as const)
          })).pipe(Effect.exit)
        const exits = yield* Effect.all([run("a", false), run("b", true), run("c", false)], { concurrency: "unbounded" })
        assert.deepStrictEqual(exits.map(Exit.isSuccess), [true, false, true])
        const rows = yield* names(table)
        assert.deepStrictEqual(rows, ["a0", "a1", "a2", "a3", "a4", "c0", "c1", "c2", "c3", "c4"])
      }))

    if (db === sqliteFile) {
      it.effect("uses WAL and foreign keys on file databases", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const [journal] = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
          assert.strictEqual(journal.journal_mode, "wal")
          const [fk] = yield* sql<{ foreign_keys: number }>`PRAGMA foreign_keys`
          assert.strictEqual(fk.foreign_keys, 1)
        }))
    }
  })

conformance(sqliteMemory)
conformance(sqliteFile)
if (postgres !== undefined) {
  conformance(postgres)
} else {
  describe("postgresql", () => {
    it.skip("conformance (set SVC_TEST_DATABASE_URL to run against PostgreSQL)", () => {})
  })
}
