/** The workflow step inputs' migrations, in id order (applied by `StepInputsRepo.layer`). */
import { workflowStepInputsTable } from "./0001_workflow_step_inputs.ts"

/** Every workflow step inputs migration. */
export const workflowStepInputsMigrations = [workflowStepInputsTable] as const
