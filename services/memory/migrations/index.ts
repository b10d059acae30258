/** The memory subsystem's migrations, in id order (applied by `MemoryRepo.layer`). */
import { memoryTables } from "./0001_memory.ts"
import { memoryFtsRowid } from "./0002_fts_rowid.ts"
import { memoryVectorSpace } from "./0003_vector_space.ts"
import { memorySearchDocument } from "./0004_search_document.ts"

/** Every memory migration. */
export const memoryMigrations = [memoryTables, memoryFtsRowid, memoryVectorSpace, memorySearchDocument] as const
