/**
 * The planner's tables (layers/storage/table.ts): `plans` (with migration
 * 2's execution columns) and the legacy `planner_events`, no longer written
 * (its rows move into the audit chain at start; services/audit/legacy.ts).
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { PlannerEventRow } from "../audit/legacy.ts"
import { plannerMigrations } from "./migrations/index.ts"
import { PlanExecutionRow, PlanRow } from "./PlansRepo.ts"

const owner = { subsystem: "planner", migrations: plannerMigrations }

/** The planner's table declarations. */
export const PlannerTables: ReadonlyArray<TableDeclaration> = [
  table({
    name: "plans",
    primaryKey: ["plan_id"],
    row: PlanRow.mapFields((fields) => ({ ...fields, ...PlanExecutionRow.fields })),
    owner
  }),
  table({ name: "planner_events", primaryKey: ["id"], row: PlannerEventRow, owner, references: ["plans"] })
]
