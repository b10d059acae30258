/**
 * Schema migrations, owned by each subsystem: a subsystem keeps its
 * migrations next to its repository (`services/<subsystem>/migrations/`, SQL
 * for both dialects) and applies them when its repository layer is built,
 * with {@link migrate}. Each subsystem has its own bookkeeping table
 * (`svc_migrations_<subsystem>`), so their id sequences are independent and
 * adding a subsystem touches no shared registry. The `effect/sql` `Migrator`
 * does the work (`Migrator.fromRecord` loader, one transaction, a table lock
 * on PostgreSQL so concurrent instances migrate once).
 *
 * At start the gateway applies every subsystem's migrations at once with
 * {@link migrateAll} (one read to find what is pending, then one transaction
 * for all of them); the repositories' own `migrate` calls are then no-ops on
 * that client. A repository built alone (tests, tools) still migrates itself.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { isSqlError, type SqlError } from "effect/sql/SqlError"

/** One migration with its SQL for each supported dialect (several statements allowed). */
export interface Migration {
  /** Positive id, unique and increasing within the subsystem. */
  readonly id: number
  /** Short snake_case name; `<id>_<name>` identifies the migration in errors. */
  readonly name: string
  readonly sqlite: string
  readonly postgres: string
}

/**
 * Applying migrations failed. `migration` names the failing one (`<id>_<name>`)
 * when one is to blame; `message` says which and why.
 */
export class MigrationFailed extends Schema.TaggedError<MigrationFailed>()("MigrationFailed", {
  message: Schema.String,
  migration: Schema.optional(Schema.String),
  cause: Schema.optional(Schema.Defect())
}) {}

const hasSql = (statement: string): boolean =>
  statement.replace(/--.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "").trim() !== ""

/**
 * Splits a SQL script into statements at top-level `;`, skipping over quoted
 * strings and identifiers, `$tag$` dollar-quoted bodies and comments. Empty
 * statements are dropped. (PostgreSQL's extended protocol runs one statement
 * per query; SQLite runs a whole script with `exec`.)
 */
const splitStatements = (sql: string): Array<string> => {
  const statements: Array<string> = []
  const push = (statement: string) => {
    if (hasSql(statement)) statements.push(statement.trim())
  }
  let start = 0
  let i = 0
  const skipTo = (close: number, length: number) => {
    i = close === -1 ? sql.length : close + length
  }
  while (i < sql.length) {
    const c = sql[i]
    const dollar = c === "$" ? /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64)) : null
    if (c === "-" && sql[i + 1] === "-") skipTo(sql.indexOf("\n", i), 1)
    else if (c === "/" && sql[i + 1] === "*") skipTo(sql.indexOf("*/", i + 2), 2)
    else if (c === "'" || c === "\"") skipTo(sql.indexOf(c, i + 1), 1)
    else if (dollar !== null) skipTo(sql.indexOf(dollar[0], i + dollar[0].length), dollar[0].length)
    else {
      if (c === ";") {
        push(sql.slice(start, i))
        start = i + 1
      }
      i++
    }
  }
  push(sql.slice(start))
  return statements
}

/** The effect that applies one migration with the current client's dialect. */
const apply = (migration: Migration): Effect.Effect<void, unknown, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statements = sql.onDialectOrElse({
      sqlite: () => [migration.sqlite],
      pg: () => splitStatements(migration.postgres),
      orElse: () => undefined
    })
    if (statements === undefined) {
      return yield* Effect.fail(new Error("Unsupported SQL dialect: only SQLite and PostgreSQL have migrations"))
    }
    for (const statement of statements) yield* sql.unsafe(statement).unprepared
  })

const describeCause = (cause: unknown): string => {
  if (isSqlError(cause)) {
    const inner = cause.reason.cause
    const detail = Predicate.hasProperty(inner, "message") ? String(inner.message) : ""
    return detail !== "" && !cause.message.includes(detail) ? `${cause.message}: ${detail}` : cause.message
  }
  return Predicate.hasProperty(cause, "message") ? String(cause.message) : String(cause)
}

const toMigrationFailed = (subsystem: string, migrations: ReadonlyArray<Migration>) =>
(error: Migrator.MigrationError | SqlError): MigrationFailed => {
  if (isSqlError(error)) {
    return new MigrationFailed({ message: `Running the ${subsystem} migrations failed: ${describeCause(error)}`, cause: error })
  }
  const failed = error.kind === "Failed"
    ? migrations.find((m) => error.message.includes(`"${m.id}_${m.name}"`))
    : undefined
  if (failed !== undefined) {
    const name = `${failed.id}_${failed.name}`
    return new MigrationFailed({
      message: `Migration ${subsystem}/${name} failed: ${describeCause(error.cause)}`,
      migration: name,
      cause: error.cause
    })
  }
  const why = error.cause === undefined ? "" : `: ${describeCause(error.cause)}`
  return new MigrationFailed({
    message: `Running the ${subsystem} migrations failed (${error.kind}): ${error.message}${why}`,
    cause: error
  })
}

/** The bookkeeping table of a subsystem's migrations. */
export const migrationsTable = (subsystem: string): string => `svc_migrations_${subsystem.replace(/[^a-z0-9_]/gi, "_")}`

/**
 * The subsystems {@link migrateAll} brought up to date, per client: their
 * later `migrate` calls on that client are no-ops (the latest migration id
 * applied, so a longer list than the one applied still runs).
 */
const upToDate = new WeakMap<SqlClient.SqlClient, Map<string, number>>()

const latestId = (migrations: ReadonlyArray<Migration>): number => migrations.reduce((max, m) => Math.max(max, m.id), 0)

const runMigrator = (subsystem: string, migrations: ReadonlyArray<Migration>) =>
  Migrator.make({})({
    loader: Migrator.fromRecord(Object.fromEntries(migrations.map((m) => [`${m.id}_${m.name}`, apply(m)]))),
    table: migrationsTable(subsystem)
  }).pipe(Effect.mapError(toMigrationFailed(subsystem, migrations)))

/**
 * Applies the pending `migrations` of `subsystem` in one transaction and
 * returns the `[id, name]` pairs it applied (none when up to date). Fails
 * with {@link MigrationFailed} naming the migration and the database's reason.
 * A no-op when {@link migrateAll} already applied them on this client.
 */
export const migrate = (
  subsystem: string,
  migrations: ReadonlyArray<Migration>
): Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, MigrationFailed, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    (upToDate.get(sql)?.get(subsystem) ?? -1) >= latestId(migrations)
      ? Effect.succeed([])
      : runMigrator(subsystem, migrations))

/** One subsystem's migrations, as {@link migrateAll} takes them (a table declaration's `owner`). */
export interface MigrationSet {
  readonly subsystem: string
  readonly migrations: ReadonlyArray<Migration>
}

/**
 * The subsystems of `sets` whose latest declared migration is not recorded
 * yet, read in two queries (which bookkeeping tables exist; their latest ids)
 * without a transaction.
 */
const pendingSets = (sql: SqlClient.SqlClient, sets: ReadonlyArray<MigrationSet>) =>
  Effect.gen(function*() {
    // Bookkeeping table names are sanitized identifiers (migrationsTable), so they are spelled inline.
    const tables = sets.map((s) => migrationsTable(s.subsystem))
    const listed = tables.map((t) => `('${t}')`).join(", ")
    const existing = new Set((yield* sql.unsafe<{ name: string }>(sql.onDialectOrElse({
      pg: () => `SELECT name FROM (VALUES ${listed}) AS t(name) WHERE to_regclass(quote_ident(name)) IS NOT NULL`,
      orElse: () => `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${tables.map((t) => `'${t}'`).join(", ")})`
    }))).map((r) => r.name))
    const present = tables.filter((t) => existing.has(t))
    const latest = new Map<string, number>()
    if (present.length > 0) {
      const union = present.map((t) => `SELECT '${t}' AS name, MAX(migration_id) AS latest FROM ${t}`).join(" UNION ALL ")
      for (const row of yield* sql.unsafe<{ name: string; latest: number | string | null }>(union)) {
        latest.set(row.name, Number(row.latest ?? 0))
      }
    }
    return sets.filter((s) => (latest.get(migrationsTable(s.subsystem)) ?? 0) < latestId(s.migrations))
  })

/**
 * Applies the pending migrations of every set in **one** transaction (all or
 * nothing: a failing migration rolls back every subsystem's), after one read
 * that finds nothing to do on an up-to-date database. Each subsystem keeps
 * its own bookkeeping table, so the result is the same as calling
 * {@link migrate} for each; afterwards their `migrate` calls on this client
 * are no-ops. On PostgreSQL the missing bookkeeping tables are created first,
 * each on its own (as `migrate` does), so that two instances starting on an
 * empty schema do not abort each other's transaction; the transaction then
 * takes each table's lock, so they migrate once. Fails with
 * {@link MigrationFailed} naming the subsystem and migration.
 */
export const migrateAll = (sets: ReadonlyArray<MigrationSet>): Effect.Effect<void, MigrationFailed, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const unique = [...new Map(sets.map((s) => [s.subsystem, s])).values()]
    const pending = yield* pendingSets(sql, unique)
    if (pending.length > 0) {
      yield* sql.onDialectOrElse({
        // Migrator's own idempotent creation (and the race it tolerates), with no migration to run.
        pg: () => Effect.forEach(pending, (s) => runMigrator(s.subsystem, []), { discard: true }),
        orElse: () => Effect.void
      })
      yield* sql.withTransaction(Effect.forEach(pending, (s) => runMigrator(s.subsystem, s.migrations), { discard: true }))
    }
    const done = upToDate.get(sql) ?? new Map<string, number>()
    for (const s of unique) done.set(s.subsystem, latestId(s.migrations))
    upToDate.set(sql, done)
  }).pipe(
    Effect.catchIf(isSqlError, (error) =>
      Effect.fail(new MigrationFailed({ message: `Running the migrations failed: ${describeCause(error)}`, cause: error })))
  )
