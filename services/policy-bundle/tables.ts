/**
 * The policy bundle's tables (layers/storage/table.ts): `policy_snapshots`,
 * one row per effective bundle (written at start), and `policy_overrides`.
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { policyBundleMigrations } from "./migrations/index.ts"
import { PolicyOverrideRow } from "./PolicyOverrideRepo.ts"
import { PolicySnapshotRow } from "./PolicySnapshotRepo.ts"

const owner = { subsystem: "policy_bundle", migrations: policyBundleMigrations }

/** The policy bundle's table declarations. */
export const PolicyBundleTables: ReadonlyArray<TableDeclaration> = [
  table({ name: "policy_snapshots", primaryKey: ["policy_snapshot_id"], row: PolicySnapshotRow, owner, writtenAtStart: true }),
  table({
    name: "policy_overrides",
    primaryKey: ["policy_override_id"],
    row: PolicyOverrideRow,
    owner,
    references: ["approvals", "policy_snapshots"]
  })
]
