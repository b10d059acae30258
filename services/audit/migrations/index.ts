/** The audit subsystem's migrations, in id order (applied by `AuditRepo.layer`). */
import { auditTables } from "./0001_audit.ts"

/** Every audit migration. */
export const auditMigrations = [auditTables] as const
