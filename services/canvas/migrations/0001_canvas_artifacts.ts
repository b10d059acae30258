/**
 * Canvas migration 1: `canvas_artifacts` (reference §6.8; docs/canvas.md),
 * one row per published page, never updated. `metadata` is JSON text (NULL
 * when none), `size_bytes` the content's UTF-8 size; times are ISO-8601 UTC
 * text with millisecond precision on both dialects. The index serves the
 * listing, newest first.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const sql = `
CREATE TABLE canvas_artifacts (
  canvas_id TEXT PRIMARY KEY,
  plan_id TEXT NULL,
  title TEXT NOT NULL,
  content_type TEXT NOT NULL CHECK (content_type IN ('text/html', 'text/plain')),
  html_content TEXT NOT NULL,
  metadata TEXT NULL,
  size_bytes INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX canvas_artifacts_created_idx ON canvas_artifacts (created_at, canvas_id);
`

/** Creates `canvas_artifacts`. */
export const canvasArtifactsTable: Migration = {
  id: 1,
  name: "canvas_artifacts",
  sqlite: sql,
  postgres: sql
}
