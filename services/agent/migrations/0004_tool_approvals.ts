/**
 * Agent runtime migration 4 (issue 25 §2 "Tools"; docs/agent.md "Tools and
 * policy"): `agent_tool_calls`, the tool calls a turn made that the policy
 * sent to an approval. Each waits (`pending`) until a later turn of its
 * session finds its approval resolved: approved calls run then and their
 * result goes into that turn's prompt; denied or expired ones are reported.
 * Then the row is `consumed` with its `outcome`.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const sql = `
CREATE TABLE agent_tool_calls (
  approval_id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  tool_id TEXT NOT NULL,
  arguments TEXT NOT NULL,
  match_target TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'consumed')),
  outcome TEXT NULL,
  created_at TEXT NOT NULL,
  consumed_at TEXT NULL
);
CREATE INDEX agent_tool_calls_session_idx ON agent_tool_calls (session_id, status);
`

/** Creates `agent_tool_calls`. */
export const agentToolCalls: Migration = { id: 4, name: "agent_tool_calls", sqlite: sql, postgres: sql }
