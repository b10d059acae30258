/**
 * The messenger subsystem's tables (layers/storage/table.ts): the inbox, the
 * delivery receipts and the approval prompts, carried by snapshots.
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { ApprovalPromptRow, DeliveryRow, InboxRow } from "./InboxRepo.ts"
import { messengerMigrations } from "./migrations/index.ts"

const owner = { subsystem: "messenger", migrations: messengerMigrations }

/** The messenger table declarations. */
export const MessengerTables: ReadonlyArray<TableDeclaration> = [
  table({ name: "messenger_inbox", primaryKey: ["inbox_id"], row: InboxRow, owner }),
  table({ name: "messenger_deliveries", primaryKey: ["delivery_id"], row: DeliveryRow, owner }),
  table({ name: "messenger_approval_prompts", primaryKey: ["approval_id"], row: ApprovalPromptRow, owner })
]
