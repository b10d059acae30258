/**
 * The work board's tables (layers/storage/table.ts): `work_items`,
 * `work_links`, `work_artifacts`, `work_decisions`, `work_signals`,
 * `work_state_kv`.
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { workMigrations } from "./migrations/index.ts"
import { WorkArtifactRow, WorkDecisionRow, WorkItemRow, WorkLinkRow, WorkSignalRow, WorkStateKvRow } from "./WorkRepo.ts"

const owner = { subsystem: "work", migrations: workMigrations }

/** The work board's table declarations. */
export const WorkTables: ReadonlyArray<TableDeclaration> = [
  table({ name: "work_items", primaryKey: ["work_item_id"], row: WorkItemRow, owner }),
  table({ name: "work_links", primaryKey: ["work_item_id", "linked_work_item_id", "kind"], row: WorkLinkRow, owner, references: ["work_items"] }),
  table({ name: "work_artifacts", primaryKey: ["artifact_id"], row: WorkArtifactRow, owner, references: ["work_items"] }),
  table({ name: "work_decisions", primaryKey: ["decision_id"], row: WorkDecisionRow, owner, references: ["work_items"] }),
  table({ name: "work_signals", primaryKey: ["signal_id"], row: WorkSignalRow, owner, references: ["work_items"] }),
  table({ name: "work_state_kv", primaryKey: ["tenant_id", "agent_id", "workspace_id", "scope_kind", "work_item_id", "key"], row: WorkStateKvRow, owner, references: ["work_items"] })
]
