/**
 * Backend selection, configuration errors and DatabaseInfo.
 */
import { assert, describe, it } from "@effect/vitest"
import { DeviceTokenRepo } from "../../../services/auth/DeviceTokenRepo.ts"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import { randomBytes } from "node:crypto"
import * as PgClient from "../../../layers/storage/PgClient.ts"
import {
  DatabaseInfo,
  resolveStorageTarget,
  StorageLive,
  StorageMemoryTest
} from "../../../layers/storage/Storage.ts"
import { postgresUrl } from "../../support/databases.ts"

describe("resolveStorageTarget", () => {
  it.effect("uses SQLite when no database URL is set", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* resolveStorageTarget({ sqlitePath: "data/svc.db" }), {
        kind: "sqlite",
        filename: "data/svc.db"
      })
      assert.deepStrictEqual(yield* resolveStorageTarget({ databaseUrl: "  ", sqlitePath: ":memory:" }), {
        kind: "sqlite",
        filename: ":memory:"
      })
    }))

  it.effect("uses PostgreSQL for postgres:// and postgresql:// URLs", () =>
    Effect.gen(function*() {
      for (const url of ["postgres://u@h/db", "postgresql://u:p@h:5433/db", "POSTGRES://h/db"]) {
        assert.deepStrictEqual(yield* resolveStorageTarget({ databaseUrl: url, sqlitePath: "x.db" }), {
          kind: "postgres",
          url
        })
      }
    }))

  it.effect("rejects other schemes with a StorageConfigError that does not leak the URL", () =>
    Effect.gen(function*() {
      const error = yield* resolveStorageTarget({ databaseUrl: "mysql://root:hunter2@db/app", sqlitePath: "x.db" }).pipe(
        Effect.flip
      )
      assert.strictEqual(error._tag, "StorageConfigError")
      assert.include(error.message, "\"mysql:\"")
      assert.notInclude(error.message, "hunter2")
      const noScheme = yield* resolveStorageTarget({ databaseUrl: "localhost:5432", sqlitePath: "x.db" }).pipe(
        Effect.flip
      )
      assert.strictEqual(noScheme._tag, "StorageConfigError")
      const empty = yield* resolveStorageTarget({ sqlitePath: "" }).pipe(Effect.flip)
      assert.strictEqual(empty._tag, "StorageConfigError")
    }))
})

describe("redactUrl", () => {
  it("removes passwords", () => {
    assert.strictEqual(PgClient.redactUrl("postgres://u:secret@h:5432/db"), "postgres://u@h:5432/db")
    assert.strictEqual(PgClient.redactUrl("postgres://h/db?password=secret&sslmode=disable"), "postgres://h/db?sslmode=disable")
    assert.strictEqual(PgClient.redactUrl("postgres://u@h/db"), "postgres://u@h/db")
    assert.strictEqual(PgClient.redactUrl("not a url"), "<invalid url>")
  })
})

describe("StorageLive", () => {
  it.effect("opens a SQLite database; a repository layer on it creates its subsystem's tables", () =>
    Effect.gen(function*() {
      const info = yield* DatabaseInfo
      assert.deepStrictEqual({ ...info }, { kind: "sqlite", location: ":memory:" })
      const sql = yield* SqlClient.SqlClient
      assert.deepStrictEqual(yield* sql`SELECT * FROM device_tokens`, [])
      assert.deepStrictEqual(yield* sql`SELECT migration_id, name FROM svc_migrations_auth`, [{ migration_id: 1, name: "device_tokens" }])
    }).pipe(Effect.provide(DeviceTokenRepo.layer.pipe(Layer.provideMerge(StorageLive({ databaseUrl: undefined, sqlitePath: ":memory:" }))))))

  it.effect("fails with StorageConfigError for an unsupported URL", () =>
    Effect.gen(function*() {
      const error = yield* Effect.provide(Effect.void, StorageLive({ databaseUrl: "mysql://db/app", sqlitePath: ":memory:" }))
        .pipe(Effect.flip)
      assert.strictEqual(error._tag, "StorageConfigError")
    }))

  it.effect("StorageMemoryTest is an empty database", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      assert.deepStrictEqual(yield* sql`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'`, [{ n: 0 }])
      assert.deepStrictEqual({ ...(yield* DatabaseInfo) }, { kind: "sqlite", location: ":memory:" })
    }).pipe(Effect.provide(StorageMemoryTest)))

  it.effect.skipIf(postgresUrl === undefined)(
    "opens PostgreSQL, honours the URL's search_path and reports the URL without its password",
    () =>
      Effect.gen(function*() {
        const url = new URL(postgresUrl!)
        url.password = "not-needed-with-trust-auth"
        const schema = `svc_test_${randomBytes(6).toString("hex")}`
        const admin = <A, E>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
          Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(PgClient.layer({ url: postgresUrl!, maxConnections: 1 })))
        yield* Effect.acquireRelease(
          admin((sql) => sql`CREATE SCHEMA ${sql(schema)}`),
          () => Effect.orDie(admin((sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`))
        )
        url.searchParams.set("options", `-c search_path=${schema}`)

        const info = yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const [row] = yield* sql<{ schema: string }>`SELECT current_schema() AS schema`
          assert.strictEqual(row.schema, schema)
          assert.deepStrictEqual(yield* sql`SELECT * FROM device_tokens`, [])
          return yield* DatabaseInfo
        }).pipe(Effect.provide(DeviceTokenRepo.layer.pipe(Layer.provideMerge(StorageLive({ databaseUrl: url.toString(), sqlitePath: ":memory:" })))))

        assert.strictEqual(info.kind, "postgres")
        assert.notInclude(info.location, "not-needed-with-trust-auth")
        const tables = yield* admin((sql) =>
          sql<{ n: bigint }>`SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = ${schema} AND table_name = 'device_tokens'`
        )
        assert.strictEqual(tables[0].n, 1n)
      })
  )
})
