/**
 * The SQL a snapshot runs, for both dialects. Table and column names come
 * from the registry (checked identifiers, quoted); values are always bound
 * parameters. Inserts go in batches of at most {@link MAX_PARAMETERS} bound
 * values per statement, so a large bundle never builds a giant SQL string.
 *
 * @module
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type { SnapshotTable } from "../../layers/storage/table.ts"
import type { Dialect } from "./values.ts"

/** Bound values per INSERT (below SQLite's historical limit of 999). */
export const MAX_PARAMETERS = 900

const quote = (identifier: string): string => `"${identifier}"`

/** A column as the database declares it. */
export interface ColumnInfo {
  readonly name: string
  readonly notNull: boolean
}

/**
 * The columns of `table` in the current database that rows are written with (none when the table does not
 * exist). Generated columns are left out on both dialects (SQLite's `pragma_table_info` does not list them;
 * on PostgreSQL `is_generated`): the database computes them from the row, so a snapshot neither carries nor
 * writes them (`memory_items.search_document`, memory migration 4), and a snapshot taken before such a column
 * was added still imports.
 */
export const columnsOf = (
  sql: SqlClient,
  dialect: Dialect,
  table: string
): Effect.Effect<ReadonlyArray<ColumnInfo>, SqlError> =>
  dialect === "sqlite"
    ? Effect.map(
      sql.unsafe<{ name: string; notnull: number }>(`SELECT name, "notnull" FROM pragma_table_info(?)`, [table]),
      (rows) => rows.map((r) => ({ name: r.name, notNull: Number(r.notnull) === 1 }))
    )
    : Effect.map(
      sql.unsafe<{ column_name: string; is_nullable: string }>(
        "SELECT column_name, is_nullable FROM information_schema.columns " +
          "WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER'",
        [table]
      ),
      (rows) => rows.map((r) => ({ name: r.column_name, notNull: r.is_nullable === "NO" }))
    )

/**
 * Makes the current transaction a consistent read: on PostgreSQL
 * `REPEATABLE READ, READ ONLY` (must be its first statement); SQLite's
 * transaction already reads one snapshot of the file.
 */
export const consistentRead = (sql: SqlClient, dialect: Dialect): Effect.Effect<void, SqlError> =>
  dialect === "postgres" ? Effect.asVoid(sql.unsafe("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")) : Effect.void

/** Every row of `table` (its registered columns), in primary-key order. */
export const readRows = (sql: SqlClient, table: SnapshotTable): Effect.Effect<ReadonlyArray<Record<string, unknown>>, SqlError> =>
  sql.unsafe<Record<string, unknown>>(
    `SELECT ${table.columns.map((c) => quote(c.name)).join(", ")} FROM ${quote(table.name)} ORDER BY ${
      table.primaryKey.map(quote).join(", ")
    }`
  )

/** True when `table` holds at least one row. */
export const hasRows = (sql: SqlClient, table: string): Effect.Effect<boolean, SqlError> =>
  Effect.map(sql.unsafe(`SELECT 1 AS one FROM ${quote(table)} LIMIT 1`), (rows) => rows.length > 0)

/** Deletes every row of `table`. */
export const deleteRows = (sql: SqlClient, table: string): Effect.Effect<void, SqlError> =>
  Effect.asVoid(sql.unsafe(`DELETE FROM ${quote(table)}`))

/**
 * PostgreSQL: locks `tables` against writers (readers go on) until the
 * transaction ends, so the emptiness check holds while rows go in. SQLite's
 * `BEGIN IMMEDIATE` already holds the write lock.
 */
export const lockTables = (sql: SqlClient, dialect: Dialect, tables: ReadonlyArray<string>): Effect.Effect<void, SqlError> =>
  dialect === "postgres" && tables.length > 0
    ? Effect.asVoid(sql.unsafe(`LOCK TABLE ${tables.map(quote).join(", ")} IN EXCLUSIVE MODE`))
    : Effect.void

/**
 * Inserts `rows` (values in the order of `columns`) in batches. A table with
 * a generated id takes the bundle's ids as given (`OVERRIDING SYSTEM VALUE`
 * on PostgreSQL, where one identity is `GENERATED ALWAYS`).
 */
export const insertRows = (
  sql: SqlClient,
  dialect: Dialect,
  table: SnapshotTable,
  columns: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<unknown>>
): Effect.Effect<void, SqlError> =>
  Effect.gen(function*() {
    if (rows.length === 0) return
    const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, columns.length)))
    const head = `INSERT INTO ${quote(table.name)} (${columns.map(quote).join(", ")})${
      dialect === "postgres" && table.serial !== undefined ? " OVERRIDING SYSTEM VALUE" : ""
    } VALUES `
    for (let start = 0; start < rows.length; start += perStatement) {
      const batch = rows.slice(start, start + perStatement)
      const params: Array<unknown> = []
      const tuples = batch.map((row) => {
        const marks = row.map((value) => {
          params.push(value)
          return dialect === "postgres" ? `$${params.length}` : "?"
        })
        return `(${marks.join(", ")})`
      })
      yield* sql.unsafe(head + tuples.join(", "), params)
    }
  })

/**
 * Sets the counter of `table`'s generated id past its largest value, so the
 * next row the gateway creates gets a fresh id: PostgreSQL `setval` on the
 * column's sequence (identity or serial); SQLite the `sqlite_sequence` row
 * of an AUTOINCREMENT table (a plain INTEGER PRIMARY KEY needs none).
 */
export const repairSerial = (sql: SqlClient, dialect: Dialect, table: SnapshotTable): Effect.Effect<void, SqlError> => {
  const column = table.serial
  if (column === undefined) return Effect.void
  const max = `(SELECT MAX(${quote(column)}) FROM ${quote(table.name)})`
  if (dialect === "postgres") {
    return Effect.asVoid(sql.unsafe(
      `SELECT setval(pg_get_serial_sequence($1, $2), COALESCE(${max}, 0) + 1, false)`,
      [table.name, column]
    ))
  }
  return Effect.gen(function*() {
    const sequence = yield* sql.unsafe(`SELECT 1 AS one FROM sqlite_master WHERE name = 'sqlite_sequence'`)
    if (sequence.length === 0) return
    yield* sql.unsafe(`UPDATE sqlite_sequence SET seq = ${max} WHERE name = ? AND seq < ${max}`, [table.name])
    yield* sql.unsafe(
      `INSERT INTO sqlite_sequence (name, seq) SELECT ?, ${max} WHERE ${max} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)`,
      [table.name, table.name]
    )
  })
}
