/** The agent runtime's migrations, in id order (applied by `AgentRepo.layer`). */
import { agentTables } from "./0001_agent.ts"
import { agentToolCalls } from "./0004_tool_approvals.ts"

/** Every agent runtime migration. */
export const agentMigrations = [agentTables, agentToolCalls] as const
