/** The memory subsystem's migrations, in id order (applied by `MemoryRepo.layer`). */
import { memoryTables } from "./0001_memory.ts"

/** Every memory migration. */
export const memoryMigrations = [memoryTables] as const
