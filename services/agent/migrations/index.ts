/** The agent runtime's migrations, in id order (applied by `AgentRepo.layer`). */
import { agentTables } from "./0001_agent.ts"

/** Every agent runtime migration. */
export const agentMigrations = [agentTables] as const
