/** The planner's migrations, in id order (applied by `PlansRepo.layer`). */
import { plansMigration } from "./0001_plans.ts"

/** Every planner migration. */
export const plannerMigrations = [plansMigration] as const
