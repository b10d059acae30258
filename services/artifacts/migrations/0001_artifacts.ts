/**
 * Artifacts migration 1: `artifacts`, the metadata of stored bytes
 * (reference §6.9; docs/artifacts.md). The bytes live in the `ArtifactStore`
 * (the filesystem under `$SVC_HOME/artifacts` by default), keyed by
 * `artifact_id`. `labels` is a JSON array, `metadata` a JSON object (NULL
 * when none). `run_id`, `step_id`, `attempt_id` are the durable link (all
 * NULL for an unlinked artifact, e.g. a memory export); `deleted_at` is set
 * when retention deleted the bytes (the row stays). Times are ISO-8601 UTC
 * text with millisecond precision on both dialects.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const sql = `
CREATE TABLE artifacts (
  artifact_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('screenshot', 'diff', 'log', 'dom_snapshot', 'http_trace', 'receipt', 'file', 'other')),
  created_at TEXT NOT NULL,
  mime_type TEXT NULL,
  size_bytes BIGINT NOT NULL,
  sha256 TEXT NOT NULL,
  labels TEXT NOT NULL,
  metadata TEXT NULL,
  sensitivity TEXT NOT NULL CHECK (sensitivity IN ('normal', 'sensitive')),
  workspace_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  run_id TEXT NULL,
  step_id TEXT NULL,
  attempt_id TEXT NULL,
  policy_snapshot_id TEXT NULL,
  deleted_at TEXT NULL
);
CREATE INDEX artifacts_run_idx ON artifacts (run_id, created_at);
CREATE INDEX artifacts_attempt_idx ON artifacts (attempt_id);
CREATE INDEX artifacts_created_idx ON artifacts (created_at);
`

/** Creates `artifacts` with lookups by run, by attempt and by age (retention). */
export const artifactsTable: Migration = {
  id: 1,
  name: "artifacts",
  sqlite: sql,
  postgres: sql
}
