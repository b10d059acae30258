/** The work board's migrations, in id order (applied by `WorkRepo.layer`). */
import { workTables } from "./0001_work.ts"

/** Every work board migration. */
export const workMigrations = [workTables] as const
