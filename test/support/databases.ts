/**
 * Test databases for storage-backed tests.
 *
 * Iterate {@link testDatabases} to run a suite against every available
 * backend: in-memory SQLite always, PostgreSQL when `SVC_TEST_DATABASE_URL`
 * is set. Every build of a `layer` is a fresh, isolated, migrated database:
 * PostgreSQL gets its own `svc_test_<random>` schema (selected through
 * `search_path`), dropped when the layer is released. Tables come from the
 * repository layers under test (each applies its subsystem's migrations).
 *
 * ```ts
 * for (const db of testDatabases) {
 *   layer(db.layer)(db.name, (it) => { ... })
 * }
 * ```
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgClient from "../../layers/storage/PgClient.ts"
import { type DatabaseInfo, storageLayer } from "../../layers/storage/Storage.ts"

/** Services a test database provides. */
export type TestDatabaseServices = SqlClient.SqlClient | DatabaseInfo

/** A backend to run storage tests against. */
export interface TestDatabase {
  readonly name: string
  readonly kind: "sqlite" | "postgres"
  /** A fresh, empty database (fresh per build); repository layers create their tables. */
  readonly layer: Layer.Layer<TestDatabaseServices, SqlError>
  /** Another fresh database. */
  readonly make: () => Layer.Layer<TestDatabaseServices, SqlError>
}

/** The PostgreSQL server for tests, from `SVC_TEST_DATABASE_URL` (unset or empty: none). */
export const postgresUrl: string | undefined = process.env.SVC_TEST_DATABASE_URL || undefined

const testDatabase = (
  name: string,
  kind: "sqlite" | "postgres",
  make: () => Layer.Layer<TestDatabaseServices, SqlError>
): TestDatabase => ({ name, kind, layer: make(), make })

/** In-memory SQLite. */
export const sqliteMemory: TestDatabase = testDatabase(
  "sqlite (memory)",
  "sqlite",
  () => storageLayer({ kind: "sqlite", filename: ":memory:" })
)

/** SQLite in a file inside a temporary directory, removed afterwards. */
export const sqliteFile: TestDatabase = testDatabase("sqlite (file)", "sqlite", () =>
  Layer.unwrap(Effect.gen(function*() {
    const directory = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-storage-"))),
      (directory) => Effect.sync(() => rmSync(directory, { recursive: true, force: true }))
    )
    return storageLayer({ kind: "sqlite", filename: join(directory, "test.db") })
  })))

const withAdminClient = <A, E>(
  url: string,
  f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>
): Effect.Effect<A, E | SqlError> =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(
    Effect.provide(PgClient.layer({ url, maxConnections: 1 }))
  )

/**
 * PostgreSQL at `url`, each build in its own `svc_test_<random>` schema that
 * is dropped (with everything in it) when the layer is released.
 */
export const postgresDatabase = (url: string): TestDatabase =>
  testDatabase("postgresql", "postgres", () =>
    Layer.unwrap(Effect.gen(function*() {
      const schema = `svc_test_${randomBytes(6).toString("hex")}`
      yield* Effect.acquireRelease(
        withAdminClient(url, (sql) => sql`CREATE SCHEMA ${sql(schema)}`),
        () => Effect.orDie(withAdminClient(url, (sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`))
      )
      return storageLayer({ kind: "postgres", url, searchPath: schema })
    })))

/**
 * One `svc_test_<random>` schema that several storage layers share (two
 * gateways on one database, or one database across a restart): each
 * `layer()` build is its own client on the schema; `drop()` removes the
 * schema and everything in it.
 */
export const sharedPostgresSchema = async (url: string): Promise<{
  /** The schema's name (`svc_test_<random>`). */
  readonly schema: string
  readonly layer: () => Layer.Layer<TestDatabaseServices, SqlError>
  readonly drop: () => Promise<void>
}> => {
  const schema = `svc_test_${randomBytes(6).toString("hex")}`
  await Effect.runPromise(withAdminClient(url, (sql) => sql`CREATE SCHEMA ${sql(schema)}`))
  return {
    schema,
    layer: () => storageLayer({ kind: "postgres", url, searchPath: schema }),
    drop: () => Effect.runPromise(Effect.asVoid(withAdminClient(url, (sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`)))
  }
}

/** PostgreSQL when `SVC_TEST_DATABASE_URL` is set. */
export const postgres: TestDatabase | undefined = postgresUrl === undefined ? undefined : postgresDatabase(postgresUrl)

/** Every backend available in this run: in-memory SQLite, plus PostgreSQL when configured. */
export const testDatabases: ReadonlyArray<TestDatabase> = postgres === undefined
  ? [sqliteMemory]
  : [sqliteMemory, postgres]
