/**
 * The cluster's tables (layers/storage/table.ts), both left out of
 * snapshots: `gateway_master_key` (the id of the cluster's master key: a
 * restored database belongs to the cluster that starts on it, which records
 * its own) and `rate_limit_windows` (the shared failed-authentication
 * counters, layers/ratelimit/SqlStore.ts: they drain within a window).
 *
 * @module
 */
import { rateLimitMigrations } from "../../layers/ratelimit/migrations.ts"
import { excludedTable, type TableDeclaration } from "../../layers/storage/table.ts"
import { clusterMigrations } from "./migrations/index.ts"

/** The cluster's table declarations. */
export const ClusterTables: ReadonlyArray<TableDeclaration> = [
  excludedTable(
    "gateway_master_key",
    "the id of the cluster's secrets master key: the cluster that starts on a restored database records its own",
    { subsystem: "cluster", migrations: clusterMigrations }
  ),
  excludedTable(
    "rate_limit_windows",
    "failed-authentication counters shared by a cluster's instances; they drain within one window",
    { subsystem: "ratelimit", migrations: rateLimitMigrations }
  )
]
