/** The planner's migrations, in id order (applied by `PlansRepo.layer`). */
import { plansMigration } from "./0001_plans.ts"
import { planExecutionMigration } from "./0002_plan_execution.ts"

/** Every planner migration. */
export const plannerMigrations = [plansMigration, planExecutionMigration] as const
