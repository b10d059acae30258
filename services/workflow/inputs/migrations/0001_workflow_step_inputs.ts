/**
 * Workflow step inputs migration 1: the real action of a step whose record
 * was redacted (inline credentials), kept until its run ends
 * (docs/workflow.md "Where inline credentials live"). Not in snapshots.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../../layers/storage/migrations.ts"

const statements = `
CREATE TABLE workflow_step_inputs (
  run_id TEXT NOT NULL,
  step_index INTEGER NOT NULL,
  action TEXT NOT NULL,
  PRIMARY KEY (run_id, step_index)
);
`

/** Creates `workflow_step_inputs`. */
export const workflowStepInputsTable: Migration = {
  id: 1,
  name: "workflow_step_inputs",
  sqlite: statements,
  postgres: statements
}
