/**
 * Routing's table (layers/storage/table.ts): `routing_configs`, one row per revision.
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { routingMigrations } from "./migrations/index.ts"
import { RoutingConfigRow } from "./RoutingConfigRepo.ts"

/** Routing's table declarations. */
export const RoutingTables: ReadonlyArray<TableDeclaration> = [
  table({
    name: "routing_configs",
    primaryKey: ["revision"],
    row: RoutingConfigRow,
    owner: { subsystem: "routing", migrations: routingMigrations }
  })
]
