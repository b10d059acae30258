/**
 * Memory migration 1: `memory_items`, `memory_tombstones` and the keyword
 * search index (docs/memory.md "Search").
 *
 * An item's kind-specific fields are one JSON text column (`data`); the
 * columns filters need are their own (`kind`, `sensitivity`, `source_kind`,
 * `fact_key`, `tags` as a JSON array). `search_title` (title and fact key),
 * `search_body` (body, summary and fact value) and `search_tags` are the
 * searchable text the service derives from the item.
 *
 * Search index: on SQLite the FTS5 table `memory_items_fts` (porter
 * stemming), kept equal to `memory_items` by triggers, so a snapshot import
 * (which writes `memory_items` only) rebuilds it; on PostgreSQL a GIN index
 * over the weighted `tsvector` expression (title and tags weight A, body
 * weight B) that the search query repeats exactly. Times are ISO-8601 UTC
 * text on both dialects.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const tables = `
CREATE TABLE memory_items (
  memory_item_id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('fact', 'note', 'procedure', 'episode')),
  sensitivity TEXT NOT NULL CHECK (sensitivity IN ('public', 'private', 'sensitive')),
  source_kind TEXT NOT NULL,
  fact_key TEXT NULL,
  tags TEXT NOT NULL,
  provenance TEXT NOT NULL,
  data TEXT NOT NULL,
  search_title TEXT NOT NULL,
  search_body TEXT NOT NULL,
  search_tags TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NULL
);
CREATE INDEX memory_items_agent_created_idx ON memory_items (agent_id, created_at, memory_item_id);
CREATE INDEX memory_items_agent_key_idx ON memory_items (agent_id, fact_key);
CREATE TABLE memory_tombstones (
  memory_item_id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  deleted_at TEXT NOT NULL,
  deleted_by TEXT NOT NULL,
  reason TEXT NULL
);
CREATE INDEX memory_tombstones_agent_idx ON memory_tombstones (agent_id, deleted_at);
`

/**
 * The weighted document of an item on PostgreSQL: migration 1's GIN index expression; since migration 4 the
 * expression of the stored generated column `search_document` that the index covers and the search reads.
 */
export const POSTGRES_DOCUMENT =
  "(setweight(to_tsvector('english', search_title), 'A') || setweight(to_tsvector('english', search_tags), 'A') || " +
  "setweight(to_tsvector('english', search_body), 'B'))"

const sqliteSearch = `
CREATE VIRTUAL TABLE memory_items_fts USING fts5(memory_item_id UNINDEXED, title, body, tags, tokenize = 'porter unicode61');
CREATE TRIGGER memory_items_fts_insert AFTER INSERT ON memory_items BEGIN
  INSERT INTO memory_items_fts (memory_item_id, title, body, tags) VALUES (new.memory_item_id, new.search_title, new.search_body, new.search_tags);
END;
CREATE TRIGGER memory_items_fts_update AFTER UPDATE ON memory_items BEGIN
  DELETE FROM memory_items_fts WHERE memory_item_id = old.memory_item_id;
  INSERT INTO memory_items_fts (memory_item_id, title, body, tags) VALUES (new.memory_item_id, new.search_title, new.search_body, new.search_tags);
END;
CREATE TRIGGER memory_items_fts_delete AFTER DELETE ON memory_items BEGIN
  DELETE FROM memory_items_fts WHERE memory_item_id = old.memory_item_id;
END;
`

/** Creates the tables, their indexes and the search index of each dialect. */
export const memoryTables: Migration = {
  id: 1,
  name: "memory",
  sqlite: tables + sqliteSearch,
  postgres: tables + `CREATE INDEX memory_items_search_idx ON memory_items USING GIN (${POSTGRES_DOCUMENT});`
}
