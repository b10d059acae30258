/**
 * `migrateAll` (layers/storage/migrations.ts), what the gateway runs at
 * start: every subsystem's pending migrations in one transaction, on SQLite
 * and PostgreSQL (when SVC_TEST_DATABASE_URL is set).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { migrate, migrateAll, type Migration, type MigrationSet, migrationsTable } from "../../../layers/storage/migrations.ts"
import { storageLayer } from "../../../layers/storage/Storage.ts"
import { postgres, postgresUrl, sharedPostgresSchema, sqliteFile, sqliteMemory, type TestDatabase } from "../../support/databases.ts"

let counter = 0
const unique = (base: string) => `${base}_${++counter}_${process.pid}`

const createsTable = (id: number, table: string): Migration => ({
  id,
  name: `create_${table}`,
  sqlite: `CREATE TABLE ${table} (id INTEGER PRIMARY KEY)`,
  postgres: `CREATE TABLE ${table} (id INTEGER PRIMARY KEY)`
})

const broken: Migration = { id: 1, name: "broken", sqlite: "CREATE TABLE (;", postgres: "CREATE TABLE (;" }

const exists = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe(`SELECT 1 FROM ${table}`).pipe(Effect.as(true), Effect.catch(() => Effect.succeed(false))))

const recorded = (subsystem: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe<{ migration_id: number }>(`SELECT migration_id FROM ${migrationsTable(subsystem)} ORDER BY migration_id`).pipe(
      Effect.map((rows) => rows.map((r) => Number(r.migration_id))),
      Effect.catch(() => Effect.succeed(undefined))
    ))

const suite = (db: TestDatabase) =>
  describe(db.name, () => {
    it.effect("applies every set once; afterwards each subsystem's migrate is a no-op, a new migration still runs", () =>
      Effect.gen(function*() {
        const [a, b] = [unique("mig_a"), unique("mig_b")]
        const sets: Array<MigrationSet> = [
          { subsystem: a, migrations: [createsTable(1, `${a}_t1`)] },
          { subsystem: b, migrations: [createsTable(1, `${b}_t1`), createsTable(2, `${b}_t2`)] }
        ]
        yield* migrateAll(sets)
        assert.deepStrictEqual(yield* recorded(a), [1])
        assert.deepStrictEqual(yield* recorded(b), [1, 2])
        assert.isTrue(yield* exists(`${b}_t2`))
        yield* migrateAll(sets)
        assert.deepStrictEqual(yield* recorded(b), [1, 2])
        assert.deepStrictEqual(yield* migrate(b, sets[1].migrations), [])
        const later = [...sets[0].migrations, createsTable(2, `${a}_t2`)]
        assert.deepStrictEqual(yield* migrate(a, later), [[2, `create_${a}_t2`]])
        assert.deepStrictEqual(yield* recorded(a), [1, 2])
      }).pipe(Effect.provide(db.make())))

    it.effect("is all or nothing: a failing migration rolls back every subsystem's, and names itself", () =>
      Effect.gen(function*() {
        const [a, b] = [unique("ok"), unique("bad")]
        const error = yield* migrateAll([
          { subsystem: a, migrations: [createsTable(1, `${a}_t1`)] },
          { subsystem: b, migrations: [broken] }
        ]).pipe(Effect.flip)
        assert.strictEqual(error._tag, "MigrationFailed")
        assert.strictEqual(error.migration, "1_broken")
        assert.include(error.message, `Migration ${b}/1_broken failed`)
        assert.isFalse(yield* exists(`${a}_t1`))
        // Nothing recorded (PostgreSQL creates the empty bookkeeping tables first, each on its own).
        assert.strictEqual((yield* recorded(a))?.length ?? 0, 0)
        // Fixed, it applies both.
        yield* migrateAll([{ subsystem: a, migrations: [createsTable(1, `${a}_t1`)] }])
        assert.deepStrictEqual(yield* recorded(a), [1])
      }).pipe(Effect.provide(db.make())))
  })

for (const db of [sqliteMemory, sqliteFile, ...(postgres === undefined ? [] : [postgres])]) suite(db)

/** Two instances starting together on one empty database (two processes' clients): each set is applied once. */
const concurrentStarts = (name: string, layers: () => Promise<{ readonly make: () => Layer.Layer<SqlClient.SqlClient, unknown>; readonly done: () => Promise<void> }>) =>
  it("two instances migrating one empty database at once apply each migration once (" + name + ")", async () => {
    const { make, done } = await layers()
    try {
      const sets: Array<MigrationSet> = [1, 2, 3].map((i) => {
        const s = unique(`race${i}`)
        return { subsystem: s, migrations: [createsTable(1, `${s}_t1`), createsTable(2, `${s}_t2`)] }
      })
      const one = migrateAll(sets).pipe(Effect.provide(make()))
      await Effect.runPromise(Effect.all([one, one], { concurrency: 2 }))
      for (const s of sets) {
        assert.deepStrictEqual(await Effect.runPromise(recorded(s.subsystem).pipe(Effect.provide(make()))), [1, 2])
      }
    } finally {
      await done()
    }
  }, 30_000)

describe("concurrent starts", () => {
  concurrentStarts("sqlite file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-migrate-all-"))
    return {
      make: () => storageLayer({ kind: "sqlite", filename: join(dir, "g.db") }),
      done: async () => rmSync(dir, { recursive: true, force: true })
    }
  })
  if (postgresUrl !== undefined) {
    const url = postgresUrl
    concurrentStarts("postgresql", async () => {
      const shared = await sharedPostgresSchema(url)
      return { make: shared.layer, done: shared.drop }
    })
  }
})
