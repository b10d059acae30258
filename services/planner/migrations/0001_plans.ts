/**
 * Planner migration 1: `plans` (one row per request_id, with its policy
 * decision and the response it answered) and `planner_events` (the
 * audit-friendly record of each plan, one chain per plan_id, hashed later by
 * the audit chain). JSON is stored as text and times as ISO-8601 text on both
 * dialects, so rows read the same from SQLite and PostgreSQL.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const plans = `
CREATE TABLE plans (
  plan_id TEXT NOT NULL PRIMARY KEY,
  request_id TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('success', 'escalate', 'failure')),
  request_json TEXT NOT NULL,
  decision_json TEXT NOT NULL,
  response_json TEXT NULL,
  created_at TEXT NOT NULL
)`

const events = (id: string) => `
CREATE TABLE planner_events (
  id ${id},
  replay_id TEXT NOT NULL,
  plan_id TEXT NOT NULL,
  step_index INTEGER NOT NULL,
  occurred_at TEXT NOT NULL,
  action TEXT NOT NULL,
  created_at TEXT NOT NULL,
  prev_hash TEXT NULL,
  event_hash TEXT NULL,
  UNIQUE (plan_id, step_index)
)`

/**
 * Creates `plans` (`request_id` unique: the idempotency key, and what makes a
 * concurrent duplicate lose) and `planner_events` (`UNIQUE (plan_id,
 * step_index)`, as the audit chain expects). `response_json` is NULL only
 * inside the transaction that creates the plan.
 */
export const plansMigration: Migration = {
  id: 1,
  name: "plans",
  sqlite: `${plans};
${events("INTEGER PRIMARY KEY AUTOINCREMENT")};
`,
  postgres: `${plans};
${events("BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")};
`
}
