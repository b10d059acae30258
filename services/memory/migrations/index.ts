/** The memory subsystem's migrations, in id order (applied by `MemoryRepo.layer`). */
import { memoryTables } from "./0001_memory.ts"
import { memoryFtsRowid } from "./0002_fts_rowid.ts"
import { memoryVectorSpace } from "./0003_vector_space.ts"

/** Every memory migration. */
export const memoryMigrations = [memoryTables, memoryFtsRowid, memoryVectorSpace] as const
