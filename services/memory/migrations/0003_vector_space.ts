/**
 * Memory migration 3: `memory_vector_space`, the one row naming the vector
 * space `memory_vectors` holds (docs/memory.md "Semantic search").
 *
 * The vectors' table itself is made by the semantic index when it first
 * stores a vector (services/memory/MemoryVectorRepo.ts), because its column
 * type depends on the embedder's dimensions (`F32_BLOB(<dims>)` on SQLite,
 * pgvector's `vector(<dims>)`), and remade when the embedder (model or
 * dimensions) changes. This row says which model (`model_id`), how many
 * dimensions and which storage (`libsql`, `pgvector` or `real[]`) the
 * current table has.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const table = `
CREATE TABLE memory_vector_space (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  model_id TEXT NOT NULL,
  dimensions INTEGER NOT NULL,
  storage TEXT NOT NULL
);
`

/** Creates `memory_vector_space` (both dialects). */
export const memoryVectorSpace: Migration = {
  id: 3,
  name: "memory_vector_space",
  sqlite: table,
  postgres: table
}
