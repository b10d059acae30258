/**
 * The agent runtime's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Layer } from "effect"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { AuthProfilesLive } from "../auth-profiles/index.ts"
import { Backplane } from "../backplane/Backplane.ts"
import { NodeDispatch } from "../nodes/NodeDispatch.ts"
import { AgentRuntime } from "./AgentRuntime.ts"
import { AgentContributions } from "./contributions.ts"
import { NodeToolsLive } from "./nodeTools.ts"
import { AgentCommands } from "./commands.ts"
import { AgentContract } from "./contract.ts"
import { AgentSettings } from "./settings.ts"
import { Subagents } from "./subagents/Subagents.ts"
import { AgentTables } from "./tables.ts"
import { AgentHttp, AgentSwitch } from "./transport/http.ts"
import { SubagentsWs } from "./transport/subagentsWs.ts"
import { AgentWs } from "./transport/ws.ts"

/**
 * The agent runtime, its slash commands, its subagents and the paired nodes' capabilities as its tools, over the auth profiles (and secrets) its models'
 * credentials come from.
 */
const layer = Layer.mergeAll(
  AgentCommands.layer,
  Subagents.layer,
  NodeToolsLive.pipe(Layer.provide(Layer.mergeAll(AgentContributions.layer, Backplane.layer, NodeDispatch.layer)))
).pipe(
  Layer.provideMerge(AgentRuntime.layer),
  Layer.provide(AuthProfilesLive)
)

/** The agent runtime subsystem (src/subsystem/Subsystem.ts): what the composition root needs of it. */
export const AgentSubsystem: Subsystem<
  typeof AgentContract,
  typeof layer,
  typeof AgentHttp,
  typeof AgentWs | typeof SubagentsWs,
  typeof AgentSettings
> = subsystem({
  contract: AgentContract,
  layer,
  http: [AgentHttp],
  switches: [AgentSwitch],
  ws: [AgentWs, SubagentsWs],
  tables: [...AgentTables],
  settings: [AgentSettings]
})
