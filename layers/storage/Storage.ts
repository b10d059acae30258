/**
 * Storage selection and start-up: picks PostgreSQL or SQLite from the
 * configuration, opens the client and checks the connection before the layer
 * is available.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { redactUrl } from "./redactUrl.ts"
import * as SqliteClient from "./SqliteClient.ts"

/**
 * Which database the application is using: `location` is the SQLite file
 * path (or `":memory:"`), or the PostgreSQL URL with any password removed.
 */
export class DatabaseInfo extends Context.Service<DatabaseInfo, {
  readonly kind: "sqlite" | "postgres"
  readonly location: string
}>()("svc-gateway/layers/storage/DatabaseInfo") {}

/** The storage configuration cannot be used (e.g. an unsupported database URL scheme). */
export class StorageConfigError extends Schema.TaggedError<StorageConfigError>()("StorageConfigError", {
  message: Schema.String
}) {}

/**
 * Storage settings: PostgreSQL when `databaseUrl` starts with `postgres://`
 * or `postgresql://`, otherwise (unset or empty) SQLite at `sqlitePath`
 * (`":memory:"` allowed).
 */
export interface StorageOptions {
  readonly databaseUrl?: string | undefined
  readonly sqlitePath: string
  /** SQLite's `PRAGMA synchronous` (`SVC_SQLITE_SYNCHRONOUS`; default `FULL`). */
  readonly sqliteSynchronous?: "FULL" | "NORMAL" | undefined
}

/** A resolved database to open; `searchPath` selects a PostgreSQL schema (used by tests). */
export type StorageTarget =
  | { readonly kind: "sqlite"; readonly filename: string; readonly synchronous?: "FULL" | "NORMAL" | undefined }
  | { readonly kind: "postgres"; readonly url: string; readonly searchPath?: string | undefined }

/** Decides between PostgreSQL and SQLite; never echoes the URL, which may hold a password. */
export const resolveStorageTarget = (options: StorageOptions): Effect.Effect<StorageTarget, StorageConfigError> => {
  const url = options.databaseUrl?.trim() ?? ""
  if (url === "") {
    return options.sqlitePath.trim() === ""
      ? Effect.fail(new StorageConfigError({ message: "The SQLite path must not be empty (use \":memory:\" for an in-memory database)" }))
      : Effect.succeed({
        kind: "sqlite",
        filename: options.sqlitePath,
        ...(options.sqliteSynchronous === undefined ? {} : { synchronous: options.sqliteSynchronous })
      })
  }
  if (/^postgres(ql)?:\/\//i.test(url)) {
    return URL.canParse(url)
      ? Effect.succeed({ kind: "postgres", url })
      : Effect.fail(new StorageConfigError({ message: "The database URL is not a valid PostgreSQL URL" }))
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]
  return Effect.fail(
    new StorageConfigError({
      message: `${
        scheme === undefined ? "The database URL has no scheme" : `Unsupported database URL scheme "${scheme}:"`
      }; use postgres:// or postgresql://, or leave it unset to use SQLite`
    })
  )
}

/**
 * Opens the given database, checks the connection and provides
 * `SqlClient.SqlClient` and {@link DatabaseInfo}. Tables are created by each
 * subsystem's repository layer (layers/storage/migrations.ts `migrate`).
 */
export const storageLayer = (target: StorageTarget): Layer.Layer<SqlClient.SqlClient | DatabaseInfo, SqlError> => {
  // The PostgreSQL driver (pg, @effect/sql-pg) is loaded only when used: a SQLite start does not compile it.
  const client: Layer.Layer<SqlClient.SqlClient, SqlError> = target.kind === "sqlite"
    ? SqliteClient.layer({ filename: target.filename, synchronous: target.synchronous })
    : Layer.unwrap(Effect.map(
      Effect.promise(() => import("./PgClient.ts")),
      (PgClient) => PgClient.layer({ url: target.url, searchPath: target.searchPath })
    ))
  const ready = Layer.effectDiscard(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SELECT 1`
  }))
  const info = Layer.succeed(DatabaseInfo, {
    kind: target.kind,
    location: target.kind === "sqlite" ? target.filename : redactUrl(target.url)
  })
  return Layer.merge(Layer.provideMerge(ready, client), info)
}

/**
 * The application's storage: PostgreSQL or SQLite per {@link StorageOptions},
 * connected. Fails with {@link StorageConfigError} for an unusable
 * configuration, or `SqlError` when the database cannot be opened or reached.
 */
export const StorageLive = (
  options: StorageOptions
): Layer.Layer<SqlClient.SqlClient | DatabaseInfo, StorageConfigError | SqlError> =>
  Layer.unwrap(Effect.map(resolveStorageTarget(options), (target) => storageLayer(target)))

/**
 * A private in-memory SQLite database for tests; each build of the layer
 * gets an empty database (repositories create their tables).
 */
export const StorageMemoryTest: Layer.Layer<SqlClient.SqlClient | DatabaseInfo, SqlError> =
  storageLayer({ kind: "sqlite", filename: ":memory:" })
