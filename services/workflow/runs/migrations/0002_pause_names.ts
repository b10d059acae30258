/**
 * Workflow runs migration 2: a resume token names the pause it continues
 * (`pause_name`: `confirm/2`, `policy/0`, `budget/1`, `retry/1/2`), so
 * resolving the pause's approval or presenting the token completes that
 * pause's deferred. Tokens from before (Confirm pauses only) read as
 * `confirm/<step_index>`.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../../layers/storage/migrations.ts"

const statements = `
ALTER TABLE workflow_resume_tokens ADD COLUMN pause_name TEXT NULL;
UPDATE workflow_resume_tokens SET pause_name = 'confirm/' || step_index WHERE pause_name IS NULL;
`

/** Adds `workflow_resume_tokens.pause_name`. */
export const workflowPauseNames: Migration = {
  id: 2,
  name: "workflow_pause_names",
  sqlite: statements,
  postgres: statements
}
