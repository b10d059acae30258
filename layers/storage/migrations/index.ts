/**
 * The migrations registry, shared by the SQLite and PostgreSQL backends.
 *
 * Each migration lives in its own `NNNN_name.ts` file and carries the SQL for
 * both dialects; add new files to {@link migrations} in id order. A migration
 * may hold several statements. On SQLite the script runs whole (`db.exec`);
 * on PostgreSQL it is split with {@link splitStatements} and each statement
 * runs in turn. The Migrator runs all pending migrations in one transaction.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { deviceTokens } from "./0001_device_tokens.ts"

/** One schema migration with its SQL for each supported dialect. */
export interface MigrationDefinition {
  /** Positive, unique, increasing id; applied migrations are recorded by id. */
  readonly id: number
  /** Short snake_case name; `<id>_<name>` identifies the migration in errors. */
  readonly name: string
  /** SQL for SQLite (several statements allowed). */
  readonly sqlite: string
  /** SQL for PostgreSQL (several statements allowed). */
  readonly postgres: string
}

/** Every migration, in id order. */
export const migrations: ReadonlyArray<MigrationDefinition> = [
  deviceTokens
]

const hasSql = (statement: string): boolean =>
  statement.replace(/--.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "").trim() !== ""

/**
 * Splits a SQL script into statements at top-level `;`, skipping over quoted
 * strings and identifiers, `$tag$` dollar-quoted bodies and comments. Empty
 * statements are dropped.
 */
export const splitStatements = (sql: string): Array<string> => {
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
export const runMigration = (migration: MigrationDefinition): Effect.Effect<void, unknown, SqlClient.SqlClient> =>
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
    for (const statement of statements) {
      yield* sql.unsafe(statement).unprepared
    }
  })

/**
 * A `Migrator` loader for the given migrations (default: the registry),
 * applying each with the SQL of the client's dialect.
 */
export const loader = (definitions: ReadonlyArray<MigrationDefinition> = migrations): Migrator.Loader =>
  Effect.succeed(
    [...definitions]
      .sort((a, b) => a.id - b.id)
      .map((migration): Migrator.ResolvedMigration => [
        migration.id,
        migration.name,
        Effect.succeed(runMigration(migration))
      ])
  )
