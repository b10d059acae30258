/**
 * The audit chain's tables (layers/storage/table.ts): `audit_chains` (one
 * head per chain) and `audit_events`.
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { AuditChainRow, AuditEventRow } from "./AuditRepo.ts"
import { auditMigrations } from "./migrations/index.ts"

const owner = { subsystem: "audit", migrations: auditMigrations }

/** The audit chain's table declarations. */
export const AuditTables: ReadonlyArray<TableDeclaration> = [
  table({ name: "audit_chains", primaryKey: ["plan_id"], row: AuditChainRow, owner }),
  table({ name: "audit_events", primaryKey: ["id"], row: AuditEventRow, owner, references: ["audit_chains"] })
]
