/**
 * Storage selection and start-up: picks PostgreSQL or SQLite from the
 * configuration, opens the client, checks the connection and applies every
 * pending migration before the layer is available.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import { loader, type MigrationDefinition, migrations as registry } from "./migrations/index.ts"
import * as PgClient from "./PgClient.ts"
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
 * Applying migrations failed. `migrationId`/`migrationName` name the failing
 * migration when one is to blame; `message` says which and why.
 */
export class MigrationFailed extends Schema.TaggedError<MigrationFailed>()("MigrationFailed", {
  message: Schema.String,
  migrationId: Schema.optional(Schema.Number),
  migrationName: Schema.optional(Schema.String),
  cause: Schema.optional(Schema.Defect())
}) {}

/**
 * Storage settings: PostgreSQL when `databaseUrl` starts with `postgres://`
 * or `postgresql://`, otherwise (unset or empty) SQLite at `sqlitePath`
 * (`":memory:"` allowed).
 */
export interface StorageOptions {
  readonly databaseUrl?: string | undefined
  readonly sqlitePath: string
}

/** A resolved database to open; `searchPath` selects a PostgreSQL schema (used by tests). */
export type StorageTarget =
  | { readonly kind: "sqlite"; readonly filename: string }
  | { readonly kind: "postgres"; readonly url: string; readonly searchPath?: string | undefined }

/** Decides between PostgreSQL and SQLite; never echoes the URL, which may hold a password. */
export const resolveStorageTarget = (options: StorageOptions): Effect.Effect<StorageTarget, StorageConfigError> => {
  const url = options.databaseUrl?.trim() ?? ""
  if (url === "") {
    return options.sqlitePath.trim() === ""
      ? Effect.fail(new StorageConfigError({ message: "The SQLite path must not be empty (use \":memory:\" for an in-memory database)" }))
      : Effect.succeed({ kind: "sqlite", filename: options.sqlitePath })
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

const describeCause = (cause: unknown): string => {
  if (isSqlError(cause)) {
    const inner = cause.reason.cause
    const detail = Predicate.hasProperty(inner, "message") ? String(inner.message) : ""
    return detail !== "" && !cause.message.includes(detail) ? `${cause.message}: ${detail}` : cause.message
  }
  return Predicate.hasProperty(cause, "message") ? String(cause.message) : String(cause)
}

const toMigrationFailed =
  (definitions: ReadonlyArray<MigrationDefinition>) => (error: Migrator.MigrationError | SqlError): MigrationFailed => {
    if (isSqlError(error)) {
      return new MigrationFailed({ message: `Running migrations failed: ${describeCause(error)}`, cause: error })
    }
    const failed = error.kind === "Failed"
      ? definitions.find((migration) => error.message.includes(`"${migration.id}_${migration.name}"`))
      : undefined
    if (failed !== undefined) {
      return new MigrationFailed({
        message: `Migration ${failed.id}_${failed.name} failed: ${describeCause(error.cause)}`,
        migrationId: failed.id,
        migrationName: failed.name,
        cause: error.cause
      })
    }
    const why = error.cause === undefined ? "" : `: ${describeCause(error.cause)}`
    return new MigrationFailed({ message: `Running migrations failed (${error.kind}): ${error.message}${why}`, cause: error })
  }

/**
 * Applies the pending migrations (default: the whole registry) in one
 * transaction and returns the `[id, name]` pairs it applied. Running it again
 * applies nothing. `table` overrides the bookkeeping table
 * (`effect_sql_migrations`).
 */
export const runMigrations = (options?: {
  readonly migrations?: ReadonlyArray<MigrationDefinition> | undefined
  readonly table?: string | undefined
}): Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, MigrationFailed, SqlClient.SqlClient> => {
  const definitions = options?.migrations ?? registry
  return Migrator.make({})({
    loader: loader(definitions),
    ...(options?.table === undefined ? {} : { table: options.table })
  }).pipe(Effect.mapError(toMigrationFailed(definitions)))
}

/**
 * Opens the given database, checks the connection, applies `migrations`
 * (default: the registry; an empty list skips the Migrator entirely) and
 * provides `SqlClient.SqlClient` and {@link DatabaseInfo}.
 */
export const storageLayer = (
  target: StorageTarget,
  options?: { readonly migrations?: ReadonlyArray<MigrationDefinition> | undefined }
): Layer.Layer<SqlClient.SqlClient | DatabaseInfo, MigrationFailed | SqlError> => {
  const client: Layer.Layer<SqlClient.SqlClient, SqlError> = target.kind === "sqlite"
    ? SqliteClient.layer({ filename: target.filename })
    : PgClient.layer({ url: target.url, searchPath: target.searchPath })
  const definitions = options?.migrations ?? registry
  const ready = Layer.effectDiscard(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SELECT 1`
    if (definitions.length > 0) yield* runMigrations({ migrations: definitions })
  }))
  const info = Layer.succeed(DatabaseInfo, {
    kind: target.kind,
    location: target.kind === "sqlite" ? target.filename : PgClient.redactUrl(target.url)
  })
  return Layer.merge(Layer.provideMerge(ready, client), info)
}

/**
 * The application's storage: PostgreSQL or SQLite per {@link StorageOptions},
 * connected and fully migrated. Fails with {@link StorageConfigError} for an
 * unusable configuration, {@link MigrationFailed} when a migration fails, or
 * `SqlError` when the database cannot be opened or reached.
 */
export const StorageLive = (
  options: StorageOptions
): Layer.Layer<SqlClient.SqlClient | DatabaseInfo, StorageConfigError | MigrationFailed | SqlError> =>
  Layer.unwrap(Effect.map(resolveStorageTarget(options), (target) => storageLayer(target)))

/**
 * A private, migrated in-memory SQLite database for tests; each build of the
 * layer gets an empty database.
 */
export const StorageMemoryTest: Layer.Layer<SqlClient.SqlClient | DatabaseInfo, MigrationFailed | SqlError> =
  storageLayer({ kind: "sqlite", filename: ":memory:" })
