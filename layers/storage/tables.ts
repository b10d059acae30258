/**
 * The storage's own tables (layers/storage/table.ts), which snapshots leave
 * out: each subsystem's migration bookkeeping and SQLite's AUTOINCREMENT
 * counters.
 *
 * @module
 */
import { excludedTable, type TableDeclaration } from "./table.ts"

/** The storage's own table declarations. */
export const StorageTables: ReadonlyArray<TableDeclaration> = [
  excludedTable(
    "svc_migrations_*",
    "migration bookkeeping (layers/storage/migrations.ts); the target applies its own migrations (an import runs them " +
      "before inserting)"
  ),
  excludedTable(
    "sqlite_sequence",
    "SQLite's AUTOINCREMENT counters; an import repairs them from the imported ids"
  )
]
