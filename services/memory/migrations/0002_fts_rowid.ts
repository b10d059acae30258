/**
 * Memory migration 2: SQLite's keyword index keyed by the item's rowid
 * (docs/memory.md "Search").
 *
 * Migration 1's FTS5 table held its own copy of the text and an unindexed
 * `memory_item_id` column, so the update and delete triggers found an item's
 * index row by scanning the whole index. From here `memory_items_fts` is an
 * external-content FTS5 table over `memory_items` (`content_rowid` its
 * rowid, columns named as `memory_items`' `search_*` columns): the triggers
 * name the one index row by rowid, the text is not stored twice, and
 * `snippet` reads it from `memory_items`. The index is rebuilt from the
 * existing items in the same migration. PostgreSQL is unchanged (its GIN
 * index is over the row itself).
 *
 * Caveat: SQLite's `VACUUM` may renumber the rowids of a table without an
 * `INTEGER PRIMARY KEY` such as `memory_items`; after a manual `VACUUM` run
 * `INSERT INTO memory_items_fts(memory_items_fts) VALUES ('rebuild')`.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const sqlite = `
DROP TRIGGER memory_items_fts_insert;
DROP TRIGGER memory_items_fts_update;
DROP TRIGGER memory_items_fts_delete;
DROP TABLE memory_items_fts;
CREATE VIRTUAL TABLE memory_items_fts USING fts5(
  search_title, search_body, search_tags,
  content = 'memory_items', content_rowid = 'rowid', tokenize = 'porter unicode61'
);
CREATE TRIGGER memory_items_fts_insert AFTER INSERT ON memory_items BEGIN
  INSERT INTO memory_items_fts (rowid, search_title, search_body, search_tags)
  VALUES (new.rowid, new.search_title, new.search_body, new.search_tags);
END;
CREATE TRIGGER memory_items_fts_update AFTER UPDATE OF search_title, search_body, search_tags ON memory_items BEGIN
  INSERT INTO memory_items_fts (memory_items_fts, rowid, search_title, search_body, search_tags)
  VALUES ('delete', old.rowid, old.search_title, old.search_body, old.search_tags);
  INSERT INTO memory_items_fts (rowid, search_title, search_body, search_tags)
  VALUES (new.rowid, new.search_title, new.search_body, new.search_tags);
END;
CREATE TRIGGER memory_items_fts_delete AFTER DELETE ON memory_items BEGIN
  INSERT INTO memory_items_fts (memory_items_fts, rowid, search_title, search_body, search_tags)
  VALUES ('delete', old.rowid, old.search_title, old.search_body, old.search_tags);
END;
INSERT INTO memory_items_fts (memory_items_fts) VALUES ('rebuild');
`

/** Rebuilds SQLite's keyword index as external content keyed by `memory_items.rowid`; nothing on PostgreSQL. */
export const memoryFtsRowid: Migration = {
  id: 2,
  name: "memory_fts_rowid",
  sqlite,
  postgres: ""
}
