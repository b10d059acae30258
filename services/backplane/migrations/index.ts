/** The backplane's migrations, in id order (applied by `Backplane.layerPostgres`). */
import { backplaneTables } from "./0001_backplane.ts"

/** Every backplane migration. */
export const backplaneMigrations = [backplaneTables] as const
