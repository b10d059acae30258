/** The approvals subsystem's migrations, in id order (applied by `ApprovalsRepo.layer`). */
import { approvalsTable } from "./0001_approvals.ts"

/** Every approvals migration. */
export const approvalsMigrations = [approvalsTable] as const
