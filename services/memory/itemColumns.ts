/**
 * The columns a memory item row is read with: the fields of `MemoryItemRow`,
 * named one by one instead of `*`, because PostgreSQL's `memory_items` also
 * holds the stored search document (`search_document`, migration 4), which
 * only the search reads and no item carries.
 *
 * @module
 */
import type { SqlClient, Statement } from "effect/sql"
import { MemoryItemRow } from "./records.ts"

/** The columns of `MemoryItemRow`, in its field order. */
export const MEMORY_ITEM_COLUMNS: ReadonlyArray<string> = Object.keys(MemoryItemRow.fields)

/** `m.memory_item_id, m.agent_id, …` (with `alias`), or the bare column names (without): the item's columns. */
export const itemColumns = (sql: SqlClient.SqlClient, alias?: string): Statement.Fragment =>
  sql.literal(MEMORY_ITEM_COLUMNS.map((column) => (alias === undefined ? column : `${alias}.${column}`)).join(", "))
