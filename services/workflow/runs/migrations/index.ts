/** The workflow runs subsystem's migrations, in id order (applied by `RunsRepo.layer`). */
import { workflowRunsTables } from "./0001_workflow_runs.ts"
import { workflowPauseNames } from "./0002_pause_names.ts"

/** Every workflow runs migration. */
export const workflowRunsMigrations = [workflowRunsTables, workflowPauseNames] as const
