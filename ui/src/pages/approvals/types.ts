/** The approval shapes, from the declarations the server uses (services/approvals/schema.ts). */
export type { Approval, ApprovalOverrideSelection } from "../../../../services/approvals/schema.ts"
import type { Approval } from "../../../../services/approvals/schema.ts"

/** An approval's status. */
export type ApprovalStatus = Approval["status"]
