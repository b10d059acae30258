/**
 * Agent runtime migration 1 (issue 25 §2–4; docs/agent.md "Storage"):
 * `agent_sessions` (one per agent, channel and thread; its model override and
 * the summary of history trimmed away), `agent_messages` (a session's
 * history, `seq` ascending; `message` the `effect/ai` prompt message as JSON
 * text) and `agent_context_reports` (one per turn, the report as JSON text,
 * with the turn's token usage as columns for `GET /usage`). Times are
 * ISO-8601 UTC text.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const sql = `
CREATE TABLE agent_sessions (
  session_id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  thread_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  model TEXT NULL,
  summary TEXT NULL,
  created_at TEXT NOT NULL,
  last_turn_at TEXT NULL
);
CREATE UNIQUE INDEX agent_sessions_thread_idx ON agent_sessions (agent_id, channel, thread_id);
CREATE TABLE agent_messages (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
  message TEXT NOT NULL,
  chars INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE agent_context_reports (
  context_report_id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  run_id TEXT NULL,
  model TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  total_tokens INTEGER NOT NULL,
  report TEXT NOT NULL,
  generated_at TEXT NOT NULL
);
CREATE INDEX agent_context_reports_agent_idx ON agent_context_reports (agent_id, generated_at);
CREATE INDEX agent_context_reports_session_idx ON agent_context_reports (session_id, generated_at);
`

/** Creates the agent runtime's tables. */
export const agentTables: Migration = { id: 1, name: "agent_runtime", sqlite: sql, postgres: sql }
