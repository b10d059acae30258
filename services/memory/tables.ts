/**
 * The memory subsystem's tables (layers/storage/table.ts): `memory_items`
 * and `memory_tombstones`, carried by snapshots, and SQLite's keyword index
 * `memory_items_fts*` (FTS5 and its shadow tables), left out: triggers
 * rebuild it from `memory_items` as an import writes them; and the vectors of
 * semantic search, `memory_vector_space` and `memory_vectors` (with libsql's
 * index tables), left out too: derived from the items by the embedder, they
 * are re-embedded after an import (services/memory/MemoryVectorRepo.ts).
 *
 * @module
 */
import { excludedTable, table, type TableDeclaration } from "../../layers/storage/table.ts"
import { memoryMigrations } from "./migrations/index.ts"
import { MemoryItemRow, MemoryTombstoneRow } from "./records.ts"

const owner = { subsystem: "memory", migrations: memoryMigrations }

/** The memory table declarations. */
export const MemoryTables: ReadonlyArray<TableDeclaration> = [
  table({ name: "memory_items", primaryKey: ["memory_item_id"], row: MemoryItemRow, owner }),
  table({ name: "memory_tombstones", primaryKey: ["memory_item_id"], row: MemoryTombstoneRow, owner }),
  excludedTable(
    "memory_items_fts*",
    "SQLite's FTS5 keyword index of memory_items (and its shadow tables): derived, rebuilt by triggers as memory_items rows are written",
    owner
  ),
  excludedTable(
    "memory_vector*",
    "memory_vector_space, memory_vectors and libsql's vector index tables: embeddings derived from memory_items, made again by the semantic backfill after an import",
    owner
  )
]
