/** The workflow runs subsystem's migrations, in id order (applied by `RunsRepo.layer`). */
import { workflowRunsTables } from "./0001_workflow_runs.ts"

/** Every workflow runs migration. */
export const workflowRunsMigrations = [workflowRunsTables] as const
