/**
 * Memory migration 4: PostgreSQL's search document stored with each item
 * (docs/memory.md "Search", docs/performance.md "Issue 24 §5").
 *
 * Migration 1 indexed the weighted document (`POSTGRES_DOCUMENT`: title and
 * tags weight A, body weight B) as a GIN expression index, so every search
 * derived each match's `tsvector` from its text again, twice: in the bitmap
 * heap scan's recheck and in `ts_rank_cd`. From here the document is a
 * stored generated column, `search_document` (computed by the server from
 * the same expression whenever a row is written; never written by the
 * gateway, and not carried by snapshots: an import writes the text and the
 * server derives the column), the GIN index is over that column, and the
 * search reads it. Same document, so the same matches and scores. SQLite is
 * unchanged (its FTS5 index already holds the parsed text).
 *
 * Applying it rewrites `memory_items` once (every row's document computed)
 * and builds the new index, inside the migration's transaction: the table
 * is locked meanwhile. Measured on the 2-core test host under load, with
 * 100,000 synthetic items of ~45 words: 39 s for the column, 17 s for the
 * index (the gateway's start waits for it once).
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"
import { POSTGRES_DOCUMENT } from "./0001_memory.ts"

const postgres = `
ALTER TABLE memory_items ADD COLUMN search_document tsvector GENERATED ALWAYS AS ${POSTGRES_DOCUMENT} STORED;
DROP INDEX memory_items_search_idx;
CREATE INDEX memory_items_search_document_idx ON memory_items USING GIN (search_document);
`

/** Adds the stored `search_document` column and moves the GIN index onto it (PostgreSQL); nothing on SQLite. */
export const memorySearchDocument: Migration = {
  id: 4,
  name: "memory_search_document",
  // Nothing to do on SQLite; a statement all the same (an empty script is an error to libsql's exec).
  sqlite: "SELECT 1;",
  postgres
}
