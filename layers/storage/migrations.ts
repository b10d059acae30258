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
 * Applies the pending `migrations` of `subsystem` in one transaction and
 * returns the `[id, name]` pairs it applied (none when up to date). Fails
 * with {@link MigrationFailed} naming the migration and the database's reason.
 */
export const migrate = (
  subsystem: string,
  migrations: ReadonlyArray<Migration>
): Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, MigrationFailed, SqlClient.SqlClient> =>
  Migrator.make({})({
    loader: Migrator.fromRecord(Object.fromEntries(migrations.map((m) => [`${m.id}_${m.name}`, apply(m)]))),
    table: migrationsTable(subsystem)
  }).pipe(Effect.mapError(toMigrationFailed(subsystem, migrations)))
