/**
 * The agent runtime's tables (layers/storage/table.ts): sessions, their
 * history, the context reports, the sessions' settings (`/queue`, `/send`),
 * the tool calls waiting on approvals, and the subagents and their message
 * queue, carried by snapshots.
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { AgentContextReportRow, AgentMessageRow, AgentSessionRow } from "./AgentRepo.ts"
import { agentMigrations } from "./migrations/index.ts"
import { AgentToolCallRow } from "./ToolCallsRepo.ts"
import { AgentSessionSettingsRow } from "./SessionSettingsRepo.ts"
import { SubagentMessageRow, SubagentRow } from "./subagents/SubagentsRepo.ts"

const owner = { subsystem: "agent", migrations: agentMigrations }

/** The agent runtime's table declarations. */
export const AgentTables: ReadonlyArray<TableDeclaration> = [
  table({ name: "agent_sessions", primaryKey: ["session_id"], row: AgentSessionRow, owner }),
  table({ name: "agent_messages", primaryKey: ["session_id", "seq"], row: AgentMessageRow, owner }),
  table({ name: "agent_context_reports", primaryKey: ["context_report_id"], row: AgentContextReportRow, owner }),
  table({ name: "agent_session_settings", primaryKey: ["session_id"], row: AgentSessionSettingsRow, owner }),
  table({ name: "agent_tool_calls", primaryKey: ["approval_id"], row: AgentToolCallRow, owner }),
  table({ name: "agent_subagents", primaryKey: ["subagent_id"], row: SubagentRow, owner }),
  table({ name: "agent_subagent_messages", primaryKey: ["message_id"], row: SubagentMessageRow, owner, references: ["agent_subagents"] })
]
