/** The audit shapes, from the declarations the server uses (services/audit/schema.ts, services/domain-events/chains.ts). */
export type { AuditEvent, AuditReceiptBundle, AuditVerifyResult } from "../../../../services/audit/schema.ts"
export { AuditChains } from "../../../../services/domain-events/chains.ts"
