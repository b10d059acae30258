/**
 * The snapshot table set, derived from the subsystems' table declarations
 * (layers/storage/table.ts): every declared table a snapshot carries, in
 * import order, and the tables it leaves out on purpose. The declarations
 * come from the root's list of subsystems (each descriptor's `tables`); the
 * composition root derives the set (src/app/tables.ts) and gives it to the
 * snapshots service as {@link SnapshotTableSet}: this folder lists no
 * subsystem.
 *
 * The import order (also the order a bundle lists its tables in) is a rule,
 * not a list kept by hand:
 * 1. the tables of the `svc.snapshot.v2` format as it was defined come in
 *    the order its bundles list them ({@link SNAPSHOT_V2_ORDER}: frozen, a
 *    new table never joins it, so existing bundles stay byte-identical);
 * 2. every other table after them, in subsystem order (the root's list),
 *    then declaration order within its subsystem;
 * 3. a table moves after the tables it `references`: each position takes the
 *    first table, in the order of 1 and 2, whose referenced tables are
 *    already placed.
 *
 * A reference to an undeclared table, a name declared twice or a cycle
 * throws when the set is derived (at module load of the root).
 *
 * @module
 */
import { Context, Layer } from "effect"
import { declares, type ExcludedTable, type SnapshotTable, type TableDeclaration } from "../../layers/storage/table.ts"

/** The snapshot set of some table declarations: what a snapshot carries, in import order, and what it leaves out. */
export interface TableSet {
  /** Every table a snapshot carries, in import order (referenced tables first). */
  readonly tables: ReadonlyArray<SnapshotTable>
  /** The tables (or `prefix*` groups) a snapshot leaves out, each with its reason. */
  readonly excluded: ReadonlyArray<ExcludedTable>
}

/**
 * The order in which `svc.snapshot.v2` bundles list the tables the format
 * was defined with (and imports insert them). Frozen with the format: a
 * table added later is placed by the rule (subsystem order, after its
 * references), never here; a new format version may drop this list.
 */
export const SNAPSHOT_V2_ORDER: ReadonlyArray<string> = [
  "policy_snapshots", "plans", "planner_events", "audit_chains", "audit_events", "approvals", "policy_overrides",
  "routing_configs", "secret_handles", "secret_versions", "secret_resolutions", "auth_profiles", "session_provider_pins",
  "device_tokens", "node_pairings", "workflow_jobs", "workflow_runs", "workflow_steps", "workflow_attempts",
  "workflow_resume_tokens", "watchers", "watcher_firings"
]

/** The {@link TableSet} of a list of subsystems' declarations (one list per subsystem, in subsystem order). */
export const tableSet = (declarations: ReadonlyArray<ReadonlyArray<TableDeclaration>>): TableSet => {
  const all = declarations.flat()
  const seen = new Set<string>()
  for (const declaration of all) {
    if (seen.has(declaration.name)) throw new Error(`table ${declaration.name} is declared twice`)
    seen.add(declaration.name)
  }
  const rank = (t: SnapshotTable) => {
    const index = SNAPSHOT_V2_ORDER.indexOf(t.name)
    return index === -1 ? SNAPSHOT_V2_ORDER.length : index
  }
  // Array.prototype.sort is stable: tables outside the v2 order keep the subsystem order.
  const carried = all.filter((d): d is SnapshotTable => d.snapshot).sort((a, b) => rank(a) - rank(b))
  const names = new Set(carried.map((t) => t.name))
  for (const t of carried) {
    const unknown = t.references.filter((r) => !names.has(r))
    if (unknown.length > 0) throw new Error(`table ${t.name} references tables no snapshot carries: ${unknown.join(", ")}`)
  }
  const placed = new Set<string>()
  const remaining = [...carried]
  const tables: Array<SnapshotTable> = []
  while (remaining.length > 0) {
    const next = remaining.findIndex((t) => t.references.every((r) => placed.has(r) || r === t.name))
    if (next < 0) throw new Error(`tables reference each other in a cycle: ${remaining.map((t) => t.name).join(", ")}`)
    const [table] = remaining.splice(next, 1)
    placed.add(table!.name)
    tables.push(table!)
  }
  return { tables, excluded: all.filter((d): d is ExcludedTable => !d.snapshot) }
}

/** The exclusion that names `tableName` (exactly or by prefix), if any. */
export const exclusionOf = (set: TableSet, tableName: string): ExcludedTable | undefined =>
  set.excluded.find((d) => declares(d, tableName))

/** True when a snapshot of `set` leaves the table `name` out on purpose (a declared exclusion). */
export const isExcludedTable = (set: TableSet, name: string): boolean => exclusionOf(set, name) !== undefined

/** The table `name` of `set`, or `undefined`. */
export const snapshotTable = (set: TableSet, name: string): SnapshotTable | undefined =>
  set.tables.find((t) => t.name === name)

/**
 * The snapshot set the `Snapshots` service exports and imports: provided by
 * the composition root from its list of subsystems (src/app/tables.ts
 * `GatewayTableSet`); a program that builds `Snapshots` by itself
 * provides the set it wants (`SnapshotTableSet.layer(tableSet(...))`).
 */
export class SnapshotTableSet extends Context.Service<SnapshotTableSet, TableSet>()("svc-gateway/snapshots/SnapshotTableSet") {
  /** `set` as a layer. */
  static readonly layer = (set: TableSet): Layer.Layer<SnapshotTableSet> => Layer.succeed(SnapshotTableSet, set)
}
