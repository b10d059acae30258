/**
 * Planner migration 2: what `POST /plan {execute: true}` asked for
 * (docs/planner.md "Execution"). `execution_state` is NULL when the plan was
 * not asked to run, else `requested` (waiting: a success plan about to start,
 * an escalated plan waiting for its approval), `starting` (claimed: one
 * caller is starting the run), `started` (`run_id` is set) or `declined` (its
 * approval was denied, expired or cancelled). `run_id` is the workflow run.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const columns = `
ALTER TABLE plans ADD COLUMN execution_state TEXT NULL
  CHECK (execution_state IN ('requested', 'starting', 'started', 'declined'));
ALTER TABLE plans ADD COLUMN run_id TEXT NULL;
`

/** Adds `plans.execution_state` and `plans.run_id` (both dialects alike). */
export const planExecutionMigration: Migration = {
  id: 2,
  name: "plan_execution",
  sqlite: columns,
  postgres: columns
}
