/**
 * The snapshot table registry (docs/operations.md "Backup and restore"):
 * the table declarations of every subsystem (each subsystem's `tables.ts`;
 * layers/storage/table.ts), in subsystem order, and the snapshot set derived
 * from them (services/snapshots/tableSet.ts): every table that holds state,
 * in import order (parents before children), with its primary key, its row
 * schema (the one its repository reads rows with), the kind of each column
 * (derived from that row schema) and the migrations that create it. Export
 * reads exactly these columns; import accepts exactly these tables and
 * columns, and only rows their row schema reads.
 *
 * A table joins snapshots by its declaration in its subsystem's `tables.ts`;
 * a subsystem joins by one entry in {@link TABLE_DECLARATIONS}. Tables left
 * out are declared too, with their reason (`cluster_*`, `svc_migrations_*`,
 * `sqlite_sequence`, `oauth_pending`, `workflow_step_inputs`).
 *
 * @module
 */
import { SecretsDbTables } from "../../layers/secrets/tables.ts"
import type { SnapshotTable, TableDeclaration } from "../../layers/storage/table.ts"
import { StorageTables } from "../../layers/storage/tables.ts"
import { ApprovalsTables } from "../approvals/tables.ts"
import { AuditTables } from "../audit/tables.ts"
import { AuthProfilesTables } from "../auth-profiles/tables.ts"
import { AuthTables } from "../auth/tables.ts"
import { PairingTables } from "../pairing/tables.ts"
import { PlannerTables } from "../planner/tables.ts"
import { PolicyBundleTables } from "../policy-bundle/tables.ts"
import { ProviderOAuthTables } from "../provider-oauth/tables.ts"
import { RoutingTables } from "../routing/tables.ts"
import { SecretsTables } from "../secrets/tables.ts"
import { WatchersTables } from "../watchers/tables.ts"
import { WorkflowTables } from "../workflow/tables.ts"
import { exclusionOf, tableSet } from "./tableSet.ts"

export type { ColumnKind } from "../../layers/storage/columns.ts"
export type { SnapshotTable, TableColumn as SnapshotColumn, TableOwner } from "../../layers/storage/table.ts"

/**
 * Every subsystem's table declarations, in subsystem order (the import order
 * follows it, referenced tables first). To be replaced by the root's list of
 * subsystem descriptors.
 */
export const TABLE_DECLARATIONS: ReadonlyArray<ReadonlyArray<TableDeclaration>> = [
  PolicyBundleTables,
  PlannerTables,
  AuditTables,
  ApprovalsTables,
  RoutingTables,
  SecretsDbTables,
  SecretsTables,
  AuthProfilesTables,
  AuthTables,
  PairingTables,
  WorkflowTables,
  WatchersTables,
  ProviderOAuthTables,
  StorageTables
]

const SET = tableSet(TABLE_DECLARATIONS)

/**
 * Every table a snapshot carries, in import order. The default export set.
 * (No foreign keys exist today; the order still puts referenced rows first:
 * plans before their approvals and runs, approvals before the overrides,
 * steps and tokens that name them, handles before versions and profiles.)
 */
export const SNAPSHOT_TABLES: ReadonlyArray<SnapshotTable> = SET.tables

/** True when a snapshot leaves the table `name` out on purpose (a declared exclusion). */
export const isExcludedTable = (name: string): boolean => exclusionOf(SET, name) !== undefined

const byName = new Map(SNAPSHOT_TABLES.map((t) => [t.name, t]))

/** The registered table `name`, or `undefined`. */
export const snapshotTable = (name: string): SnapshotTable | undefined => byName.get(name)

/** The import position of each table (lower first). */
export const importOrder = (name: string): number => SNAPSHOT_TABLES.findIndex((t) => t.name === name)
