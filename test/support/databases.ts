/**
 * Test databases for storage-backed tests.
 *
 * Iterate {@link testDatabases} to run a suite against every available
 * backend: in-memory SQLite always, PostgreSQL when `SVC_TEST_DATABASE_URL`
 * is set. Every build of a `layer` is a fresh, isolated, migrated database:
 * PostgreSQL gets its own `svc_test_<random>` schema (selected through
 * `search_path`), dropped when the layer is released.
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
import type { MigrationDefinition } from "../../layers/storage/migrations/index.ts"
import * as PgClient from "../../layers/storage/PgClient.ts"
import { type DatabaseInfo, type MigrationFailed, storageLayer } from "../../layers/storage/Storage.ts"

/** Services a test database provides. */
export type TestDatabaseServices = SqlClient.SqlClient | DatabaseInfo

/** Options for {@link TestDatabase.make}: `migrations: []` leaves the database empty. */
export interface TestDatabaseOptions {
  readonly migrations?: ReadonlyArray<MigrationDefinition> | undefined
}

/** A backend to run storage tests against. */
export interface TestDatabase {
  readonly name: string
  readonly kind: "sqlite" | "postgres"
  /** A fresh database with every registry migration applied (fresh per build). */
  readonly layer: Layer.Layer<TestDatabaseServices, MigrationFailed | SqlError>
  /** Another fresh database, e.g. unmigrated or with extra migrations. */
  readonly make: (options?: TestDatabaseOptions) => Layer.Layer<TestDatabaseServices, MigrationFailed | SqlError>
}

/** The PostgreSQL server for tests, from `SVC_TEST_DATABASE_URL` (unset or empty: none). */
export const postgresUrl: string | undefined = process.env.SVC_TEST_DATABASE_URL || undefined

const testDatabase = (
  name: string,
  kind: "sqlite" | "postgres",
  make: (options?: TestDatabaseOptions) => Layer.Layer<TestDatabaseServices, MigrationFailed | SqlError>
): TestDatabase => ({ name, kind, layer: make(), make })

/** In-memory SQLite. */
export const sqliteMemory: TestDatabase = testDatabase(
  "sqlite (memory)",
  "sqlite",
  (options) => storageLayer({ kind: "sqlite", filename: ":memory:" }, options)
)

/** SQLite in a file inside a temporary directory, removed afterwards. */
export const sqliteFile: TestDatabase = testDatabase("sqlite (file)", "sqlite", (options) =>
  Layer.unwrap(Effect.gen(function*() {
    const directory = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-storage-"))),
      (directory) => Effect.sync(() => rmSync(directory, { recursive: true, force: true }))
    )
    return storageLayer({ kind: "sqlite", filename: join(directory, "test.db") }, options)
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
  testDatabase("postgresql", "postgres", (options) =>
    Layer.unwrap(Effect.gen(function*() {
      const schema = `svc_test_${randomBytes(6).toString("hex")}`
      yield* Effect.acquireRelease(
        withAdminClient(url, (sql) => sql`CREATE SCHEMA ${sql(schema)}`),
        () => Effect.orDie(withAdminClient(url, (sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`))
      )
      return storageLayer({ kind: "postgres", url, searchPath: schema }, options)
    })))

/** PostgreSQL when `SVC_TEST_DATABASE_URL` is set. */
export const postgres: TestDatabase | undefined = postgresUrl === undefined ? undefined : postgresDatabase(postgresUrl)

/** Every backend available in this run: in-memory SQLite, plus PostgreSQL when configured. */
export const testDatabases: ReadonlyArray<TestDatabase> = postgres === undefined
  ? [sqliteMemory]
  : [sqliteMemory, postgres]
