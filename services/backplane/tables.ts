/**
 * The backplane's tables (layers/storage/table.ts), created on PostgreSQL
 * only (`Backplane.layerPostgres`): runtime state of the instances that are
 * running (heartbeats, the connection directory, the event outbox and the
 * cursors in it), so a snapshot leaves them out.
 *
 * @module
 */
import { excludedTable, type TableDeclaration } from "../../layers/storage/table.ts"
import { backplaneMigrations } from "./migrations/index.ts"

/** The backplane's table declarations. */
export const BackplaneTables: ReadonlyArray<TableDeclaration> = [
  excludedTable(
    "backplane_*",
    "the running instances' heartbeats, connection directory, event outbox and cursors: runtime state of live " +
      "processes and sockets, rebuilt as instances start and clients reconnect",
    { subsystem: "backplane", migrations: backplaneMigrations }
  )
]
