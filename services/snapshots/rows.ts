/**
 * Rows between the database and a bundle (services/snapshots/Snapshots.ts):
 * stored rows to their portable form for an export, and a bundle table
 * checked against the registry and converted to bound values for an import.
 * Messages name tables, row keys and columns, never values.
 *
 * @module
 */
import { Effect, Result } from "effect"
import { type Decoder, makeDecoder } from "../shared/decode.ts"
import { InvalidRequest, SnapshotExportFailed } from "./errors.ts"
import type { SnapshotTable } from "../../layers/storage/table.ts"
import { type Dialect, toPortable, toStored } from "./values.ts"

/** A bundle table checked and converted for insertion: bound values in the order of `columns`. */
export interface PreparedTable {
  readonly table: SnapshotTable
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
}

/** A name from a request, shortened to 64 characters for a message. */
export const clip = (text: string): string => (text.length > 64 ? `${text.slice(0, 64)}…` : text)

/** `unknown table '<t>'` (or `unknown tables …`), names shortened. */
export const unknownTables = (names: ReadonlyArray<string>): string =>
  names.length === 1 ? `unknown table '${clip(names[0]!)}'` : `unknown tables ${names.map((n) => `'${clip(n)}'`).join(", ")}`

/**
 * Each table's row decoder, compiled once (on its first use). Messages name
 * the field and what was expected, never the value (`echoInput: false`): a
 * row may hold digests and ciphertext.
 */
const rowDecoders = new WeakMap<SnapshotTable, Decoder<unknown>>()
const rowDecoder = (table: SnapshotTable): Decoder<unknown> => {
  let decoder = rowDecoders.get(table)
  if (decoder === undefined) {
    decoder = makeDecoder(table.row, { label: "row", echoInput: false })
    rowDecoders.set(table, decoder)
  }
  return decoder
}

/**
 * Checks one bundle row (already converted) against its table's row schema,
 * as the repository would read it back: each registered column in its
 * canonical stored form (SQLite's: JSON as text, integers as numbers or
 * bigints, booleans 1/0), a column the bundle leaves out as NULL, except a
 * generated id (`serial`), which the database assigns. `undefined` when the
 * row is readable, else the message (`<field>: expected …`).
 */
const unreadable = (
  table: SnapshotTable,
  row: Record<string, unknown>,
  listed: ReadonlySet<string>,
  notNull: ReadonlySet<string>
): string | undefined => {
  const canonical: Record<string, unknown> = {}
  for (const column of table.columns) {
    if (!listed.has(column.name)) {
      canonical[column.name] = column.kind === "serial" ? 1 : null
      continue
    }
    const stored = toStored(column.kind, row[column.name], "sqlite", notNull.has(column.name))
    // The dialect's conversion already succeeded for this value; the canonical one accepts the same inputs.
    canonical[column.name] = Result.isSuccess(stored) ? stored.success : null
  }
  const decoded = rowDecoder(table)(canonical)
  return Result.isFailure(decoded) ? decoded.failure : undefined
}

/** The key of a stored row for messages: primary-key columns only (ids and names, never secret material). */
const rowKey = (table: SnapshotTable, row: Record<string, unknown>): string =>
  table.primaryKey.map((c) => `${c}=${String(row[c])}`).join(", ")

/** The portable form of a table's stored rows; a value that does not fit its kind: `SnapshotExportFailed`. */
export const portableTable = (table: SnapshotTable, rows: ReadonlyArray<Record<string, unknown>>) =>
  Effect.gen(function*() {
    const out: Array<Record<string, unknown>> = new Array(rows.length)
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const portable: Record<string, unknown> = {}
      for (const column of table.columns) {
        const value = toPortable(column.kind, row[column.name])
        if (Result.isFailure(value)) {
          return yield* new SnapshotExportFailed({
            message: `table ${table.name}, row ${rowKey(table, row)}, column ${column.name}: ${value.failure}`
          })
        }
        portable[column.name] = value.success
      }
      out[i] = portable
    }
    return { columns: table.columns.map((c) => c.name), rows: out }
  })

/**
 * Checks a bundle table against the registry and converts its rows: every
 * column must be registered and listed once; every row an object whose keys
 * are listed columns (a listed column missing from a row is NULL), each value
 * fitting its column kind, and the whole row readable by the table's row
 * schema (e.g. `device_tokens.role` one of `client`, `node`; a NOT NULL
 * column present). Columns the bundle does not list are left to their
 * defaults (NULL; a generated id is assigned). The first problem fails with
 * `InvalidRequest` naming the table, the row index and the field.
 */
export const prepareTable = (
  table: SnapshotTable,
  data: { readonly columns: ReadonlyArray<string>; readonly rows: ReadonlyArray<unknown> },
  notNull: ReadonlySet<string>,
  dialect: Dialect
): Effect.Effect<PreparedTable, InvalidRequest> => {
  const path = `bundle.tables.${table.name}`
  const kinds = new Map(table.columns.map((c) => [c.name, c.kind]))
  const unknown = data.columns.filter((c) => !kinds.has(c))
  if (unknown.length > 0) {
    return Effect.fail(new InvalidRequest({
      message: `${path}.columns: unknown column${unknown.length > 1 ? "s" : ""} ${unknown.map((c) => `'${clip(c)}'`).join(", ")} in table '${table.name}'`
    }))
  }
  if (new Set(data.columns).size !== data.columns.length) {
    return Effect.fail(new InvalidRequest({ message: `${path}.columns: a column is listed twice` }))
  }
  const listed = new Set(data.columns)
  const rows: Array<ReadonlyArray<unknown>> = new Array(data.rows.length)
  for (let i = 0; i < data.rows.length; i++) {
    const row = data.rows[i]
    if (typeof row !== "object" || row === null || Array.isArray(row)) {
      return Effect.fail(new InvalidRequest({ message: `${path}.rows[${i}]: expected an object {column: value}` }))
    }
    for (const key of Object.keys(row)) {
      if (!listed.has(key)) {
        return Effect.fail(new InvalidRequest({ message: `${path}.rows[${i}]: column '${clip(key)}' is not in ${path}.columns` }))
      }
    }
    const values: Array<unknown> = new Array(data.columns.length)
    for (let c = 0; c < data.columns.length; c++) {
      const column = data.columns[c]!
      const stored = toStored(kinds.get(column)!, (row as Record<string, unknown>)[column], dialect, notNull.has(column))
      if (Result.isFailure(stored)) {
        return Effect.fail(new InvalidRequest({ message: `${path}.rows[${i}].${column}: ${stored.failure}` }))
      }
      values[c] = stored.success
    }
    const problem = unreadable(table, row as Record<string, unknown>, listed, notNull)
    if (problem !== undefined) return Effect.fail(new InvalidRequest({ message: `${path}.rows[${i}].${problem}` }))
    rows[i] = values
  }
  if (rows.length > 0 && data.columns.length === 0) {
    // Unreachable while every table has a NOT NULL column besides its generated id; never an INSERT without columns.
    return Effect.fail(new InvalidRequest({ message: `${path}.columns: expected the columns of its rows, got none` }))
  }
  return Effect.succeed({ table, columns: data.columns, rows })
}

/**
 * The table names of a `tables` list (`a,b`; spaces and empty entries
 * ignored, duplicates once); `undefined` for no list (every table). An empty
 * list fails with the message to answer.
 */
export const parseTableList = (list: string | undefined): Result.Result<ReadonlyArray<string> | undefined, string> => {
  if (list === undefined) return Result.succeed(undefined)
  const names = [...new Set(list.split(",").map((n) => n.trim()).filter((n) => n !== ""))]
  return names.length === 0 ? Result.fail("tables: expected a comma-separated list of table names") : Result.succeed(names)
}
