/**
 * The approvals' table (layers/storage/table.ts): `approvals`.
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { ApprovalRow } from "./ApprovalsRepo.ts"
import { approvalsMigrations } from "./migrations/index.ts"

/** The approvals' table declarations. */
export const ApprovalsTables: ReadonlyArray<TableDeclaration> = [
  table({
    name: "approvals",
    primaryKey: ["id"],
    row: ApprovalRow,
    owner: { subsystem: "approvals", migrations: approvalsMigrations },
    references: ["plans"]
  })
]
