/**
 * Work board migration 1: `work_items`, `work_links`, `work_artifacts`,
 * `work_decisions`, `work_signals`, `work_state_kv` (reference §5.3).
 *
 * Ids are uuids (text). Times are ISO-8601 UTC text with millisecond
 * precision on both dialects, so they compare and sort as text. JSON fields
 * are JSON text. Every row carries its WorkScope (`tenant_id`, `agent_id`,
 * `workspace_id`); `work_state_kv.work_item_id` is `''` for the agent scope.
 * `work_signals.due_at` is a time signal's `trigger_spec_json.at`,
 * normalised, while it is active (NULL otherwise).
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const statements = `
CREATE TABLE work_items (
  work_item_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('action', 'initiative')),
  title TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('backlog', 'ready', 'doing', 'blocked', 'done', 'failed', 'cancelled')),
  priority INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  created_from_session_key TEXT NOT NULL,
  last_active_at TEXT NOT NULL,
  acceptance TEXT NULL,
  fingerprint TEXT NULL,
  budgets TEXT NULL,
  parent_work_item_id TEXT NULL,
  updated_at TEXT NULL
);
CREATE INDEX work_items_scope_status_idx ON work_items (tenant_id, agent_id, workspace_id, status);
CREATE INDEX work_items_scope_created_idx ON work_items (tenant_id, agent_id, workspace_id, created_at, work_item_id);
CREATE TABLE work_links (
  work_item_id TEXT NOT NULL,
  linked_work_item_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('depends_on')),
  tenant_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (work_item_id, linked_work_item_id, kind)
);
CREATE INDEX work_links_linked_idx ON work_links (linked_work_item_id);
CREATE TABLE work_artifacts (
  artifact_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  work_item_id TEXT NULL,
  kind TEXT NOT NULL,
  title TEXT NOT NULL,
  body_md TEXT NULL,
  refs TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX work_artifacts_scope_created_idx ON work_artifacts (tenant_id, agent_id, workspace_id, created_at, artifact_id);
CREATE TABLE work_decisions (
  decision_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  work_item_id TEXT NULL,
  question TEXT NOT NULL,
  chosen TEXT NOT NULL,
  alternatives TEXT NOT NULL,
  rationale_md TEXT NOT NULL,
  input_artifact_ids TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX work_decisions_scope_created_idx ON work_decisions (tenant_id, agent_id, workspace_id, created_at, decision_id);
CREATE TABLE work_signals (
  signal_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  work_item_id TEXT NULL,
  trigger_kind TEXT NOT NULL CHECK (trigger_kind IN ('time', 'event')),
  trigger_spec_json TEXT NOT NULL,
  payload_json TEXT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'paused', 'fired', 'resolved', 'cancelled')),
  due_at TEXT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NULL,
  fired_at TEXT NULL
);
CREATE INDEX work_signals_scope_created_idx ON work_signals (tenant_id, agent_id, workspace_id, created_at, signal_id);
CREATE INDEX work_signals_due_idx ON work_signals (status, due_at);
CREATE TABLE work_state_kv (
  tenant_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  scope_kind TEXT NOT NULL CHECK (scope_kind IN ('agent', 'work_item')),
  work_item_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value_json TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, agent_id, workspace_id, scope_kind, work_item_id, key)
);
`

/** Creates the work board's tables and their indexes (same SQL on both dialects). */
export const workTables: Migration = { id: 1, name: "work", sqlite: statements, postgres: statements }
