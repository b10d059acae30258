/**
 * The snapshot table set, derived from the subsystems' table declarations
 * (layers/storage/table.ts): every declared table a snapshot carries, in
 * import order, and the tables it leaves out on purpose. Pure; the lists
 * come from services/snapshots/registry.ts.
 *
 * Import order is the declarations' order (subsystem by subsystem), except
 * that a table comes after the tables it `references`: each position takes
 * the first table, in declaration order, whose referenced tables are already
 * placed. A reference to an undeclared table, a name declared twice or a
 * cycle throws at module load.
 *
 * @module
 */
import { declares, type ExcludedTable, type SnapshotTable, type TableDeclaration } from "../../layers/storage/table.ts"

/** The snapshot set of some table declarations: what a snapshot carries, in import order, and what it leaves out. */
export interface TableSet {
  /** Every table a snapshot carries, in import order (referenced tables first). */
  readonly tables: ReadonlyArray<SnapshotTable>
  /** The tables (or `prefix*` groups) a snapshot leaves out, each with its reason. */
  readonly excluded: ReadonlyArray<ExcludedTable>
}

/** The {@link TableSet} of a list of subsystems' declarations (one list per subsystem, in subsystem order). */
export const tableSet = (declarations: ReadonlyArray<ReadonlyArray<TableDeclaration>>): TableSet => {
  const all = declarations.flat()
  const seen = new Set<string>()
  for (const declaration of all) {
    if (seen.has(declaration.name)) throw new Error(`table ${declaration.name} is declared twice`)
    seen.add(declaration.name)
  }
  const carried = all.filter((d): d is SnapshotTable => d.snapshot)
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
