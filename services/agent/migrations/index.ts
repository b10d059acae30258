/** The agent runtime's migrations, in id order (applied by `AgentRepo.layer`). */
import { agentTables } from "./0001_agent.ts"
import { agentSubagents } from "./0003_subagents.ts"

/** Every agent runtime migration. */
export const agentMigrations = [agentTables, agentSubagents] as const
