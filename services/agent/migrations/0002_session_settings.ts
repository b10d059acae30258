/**
 * Agent runtime migration 2 (issue 25 §3; docs/agent.md "Slash commands"):
 * `agent_session_settings`, a session's settings that slash commands change:
 * `queue_mode` (`/queue`: collect, followup, steer, steer_backlog or
 * interrupt) and `send_policy` (`/send`: on, off or inherit). `NULL` means
 * "not set" (the default applies). One row per session, written on the first
 * change; `updated_at` is ISO-8601 UTC text.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const sql = `
CREATE TABLE agent_session_settings (
  session_id TEXT PRIMARY KEY,
  queue_mode TEXT NULL CHECK (queue_mode IN ('collect', 'followup', 'steer', 'steer_backlog', 'interrupt')),
  send_policy TEXT NULL CHECK (send_policy IN ('on', 'off', 'inherit')),
  updated_at TEXT NOT NULL
);
`

/** Creates `agent_session_settings`. */
export const agentSessionSettings: Migration = { id: 2, name: "agent_session_settings", sqlite: sql, postgres: sql }
