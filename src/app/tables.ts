/**
 * The gateway's tables, derived from the root's list of subsystems
 * (src/app/subsystems.ts; docs/operations.md "Backup and restore"): each
 * descriptor's `tables` (its `services/<x>/tables.ts`; the secrets
 * descriptor also brings the secrets database's `secret_versions`, and the
 * gateway's own routes the storage's bookkeeping tables, left out of
 * snapshots with their reason) make the snapshot set, in the import order
 * of services/snapshots/tableSet.ts (the `svc.snapshot.v2` order, then
 * subsystem order, each table after the tables it `references`). A table
 * joins snapshots by its declaration in its subsystem's `tables.ts`; a
 * subsystem by its line in the root's list: nothing here is listed by hand.
 * The root gives the set to the snapshots service as
 * `SnapshotTableSet.layer(GatewayTableSet)`.
 *
 * @module
 */
import type { SnapshotTable } from "../../layers/storage/table.ts"
import { isExcludedTable as excludedFrom, tableSet, type TableSet } from "../../services/snapshots/tableSet.ts"
import { Subsystems } from "./subsystems.ts"

/** The snapshot set of every subsystem's tables. */
export const GatewayTableSet: TableSet = tableSet(Subsystems.map((s) => s.tables))

/** Every table a snapshot carries, in import order: the default export set. */
export const SNAPSHOT_TABLES: ReadonlyArray<SnapshotTable> = GatewayTableSet.tables

/** True when a snapshot leaves the table `name` out on purpose (a declared exclusion). */
export const isExcludedTable = (name: string): boolean => excludedFrom(GatewayTableSet, name)
