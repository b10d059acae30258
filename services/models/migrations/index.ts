/** The models subsystem's migrations, in id order (applied by `ModelsRepo.layer`). */
import { modelsDevTables } from "./0001_models_dev.ts"

/** Every models migration. */
export const modelsMigrations = [modelsDevTables] as const
