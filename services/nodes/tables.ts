/**
 * The nodes subsystem's tables (layers/storage/table.ts): `node_attempts`, left out of snapshots (the tasks executing
 * on nodes right now, for `attempt.evidence` across a cluster's instances; a row lives for its task plus the grace).
 *
 * @module
 */
import { excludedTable, type TableDeclaration } from "../../layers/storage/table.ts"
import { nodesMigrations } from "./migrations/index.ts"

/** The nodes subsystem's table declarations. */
export const NodesTables: ReadonlyArray<TableDeclaration> = [
  excludedTable(
    "node_attempts",
    "tasks executing on nodes right now (a cluster's attempt.evidence); each row lives for its task plus a few seconds",
    { subsystem: "nodes", migrations: nodesMigrations }
  )
]
