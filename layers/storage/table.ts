/**
 * Table declarations: each subsystem declares the tables its migrations
 * create in its own `tables.ts` (`services/<subsystem>/tables.ts`), next to
 * its repository's row schemas and migrations. A declaration names the
 * table, its primary key, its row schema (the one the repository reads rows
 * with), the migrations that create it, and whether a snapshot carries it
 * (docs/operations.md "Backup and restore"); a table left out says why.
 * The columns and their kinds are derived from the row schema's fields, in
 * field order (layers/storage/columns.ts): nothing is listed twice.
 *
 * The snapshot set is derived from these declarations
 * (services/snapshots/tableSet.ts).
 *
 * @module
 */
import type { Schema } from "effect"
import { type ColumnKind, columnKindOf } from "./columns.ts"
import type { Migration } from "./migrations.ts"

/** The migrations that create a table: the subsystem name given to `migrate` and its migration list. */
export interface TableOwner {
  readonly subsystem: string
  readonly migrations: ReadonlyArray<Migration>
}

/**
 * A table's row schema: a struct whose fields are the table's columns, in
 * the table's column order; it decodes a whole stored row as the owning
 * repository reads it (JSON columns as text, integers as numbers or bigints,
 * booleans as 1/0, timestamps as ISO text), failing where the repository would.
 */
export type RowSchema = Schema.ConstraintDecoder<unknown> & {
  readonly fields: Readonly<Record<string, Schema.Top>>
}

/** One column of a declared table: its name and how its values travel (derived from the row schema). */
export interface TableColumn {
  readonly name: string
  readonly kind: ColumnKind
}

/** What a subsystem writes for a table a snapshot carries (see {@link table}). */
export interface SnapshotTableSpec {
  readonly name: string
  /** Columns of the primary key, in order: export orders rows by them. */
  readonly primaryKey: ReadonlyArray<string>
  /** The repository's row schema; its fields are the columns. */
  readonly row: RowSchema
  readonly owner: TableOwner
  /**
   * The gateway writes rows into this table by itself when it starts
   * (`policy_snapshots`: the effective bundle's snapshot). An import into a
   * gateway whose every other snapshot table is empty replaces them;
   * otherwise the table must be empty like any other.
   */
  readonly writtenAtStart?: boolean
  /**
   * Tables whose rows this table's rows name (`approvals.plan_id` → `plans`):
   * an import inserts them first. Every name must be a snapshot table.
   */
  readonly references?: ReadonlyArray<string>
}

/** A declared table a snapshot carries, with its columns derived from its row schema. */
export interface SnapshotTable extends Omit<SnapshotTableSpec, "writtenAtStart" | "references"> {
  readonly snapshot: true
  readonly columns: ReadonlyArray<TableColumn>
  /** The `serial` column, if any (at most one). */
  readonly serial: string | undefined
  readonly writtenAtStart: boolean
  readonly references: ReadonlyArray<string>
}

/**
 * A table (or, with a name ending in `*`, every table with that prefix) a
 * snapshot leaves out on purpose, and why.
 */
export interface ExcludedTable {
  readonly name: string
  readonly snapshot: false
  readonly reason: string
  /** The migrations that create it, when a subsystem's do. */
  readonly owner?: TableOwner | undefined
}

/** A table declaration: carried by snapshots or excluded with its reason. */
export type TableDeclaration = SnapshotTable | ExcludedTable

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/

/**
 * Declares a table a snapshot carries; its columns are the row schema's
 * fields, in order, each with the kind {@link columnKindOf} derives. Throws
 * at module load on a malformed declaration (a bad name, a field whose kind
 * the schema does not say, two serial columns, a primary key that is not a
 * column).
 *
 * ```ts
 * table({ name: "approvals", primaryKey: ["id"], row: ApprovalRow, owner: { subsystem: "approvals", migrations } })
 * ```
 */
export const table = (spec: SnapshotTableSpec): SnapshotTable => {
  const bad = (why: string) => new Error(`table declaration ${spec.name}: ${why}`)
  if (!IDENTIFIER.test(spec.name)) throw bad("the name is not a lowercase identifier")
  const columns = Object.entries(spec.row.fields).map(([name, field]): TableColumn => {
    const kind = columnKindOf(field.ast)
    if (!IDENTIFIER.test(name)) throw bad(`column '${name}' is not a lowercase identifier`)
    if (kind === undefined) throw bad(`the row schema does not say the kind of column '${name}' (use a column schema of layers/storage/columns.ts)`)
    return { name, kind }
  })
  const names = new Set(columns.map((c) => c.name))
  const serials = columns.filter((c) => c.kind === "serial")
  if (serials.length > 1) throw bad("more than one serial column")
  if (spec.primaryKey.length === 0 || spec.primaryKey.some((c) => !names.has(c))) throw bad("the primary key is not made of columns")
  return {
    ...spec,
    snapshot: true,
    columns,
    serial: serials[0]?.name,
    writtenAtStart: spec.writtenAtStart === true,
    references: spec.references ?? []
  }
}

/** Declares a table (or a `prefix*` of tables) a snapshot leaves out, with the reason. */
export const excludedTable = (name: string, reason: string, owner?: TableOwner): ExcludedTable => ({
  name,
  snapshot: false,
  reason,
  owner
})

/** True when `declaration` names `tableName` (exactly, or by its `prefix*`). */
export const declares = (declaration: TableDeclaration, tableName: string): boolean =>
  declaration.name.endsWith("*") ? tableName.startsWith(declaration.name.slice(0, -1)) : declaration.name === tableName
