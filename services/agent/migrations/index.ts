/** The agent runtime's migrations, in id order (applied by `AgentRepo.layer` and `SessionSettingsRepo.layer`). */
import { agentTables } from "./0001_agent.ts"
import { agentSessionSettings } from "./0002_session_settings.ts"
import { agentSubagents } from "./0003_subagents.ts"
import { agentToolCalls } from "./0004_tool_approvals.ts"
import { agentTurnCost } from "./0005_turn_cost.ts"

/** Every agent runtime migration. */
export const agentMigrations = [agentTables, agentSessionSettings, agentSubagents, agentToolCalls, agentTurnCost] as const
