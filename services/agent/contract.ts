/**
 * The agent runtime's contract (src/subsystem/Subsystem.ts): its HTTP group,
 * its WebSocket types and its events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { AgentEvents } from "./events.ts"
import { SubagentEvents } from "./subagents/events.ts"
import { AgentApi } from "./transport/httpApi.ts"
import { CommandExecute, SessionSend, SubagentMessages } from "./transport/wsApi.ts"

/** The agent runtime's contract. */
export const AgentContract: Contract<
  "agent",
  typeof AgentApi,
  typeof SessionSend | typeof CommandExecute | (typeof SubagentMessages)[number],
  (typeof AgentEvents)[number] | (typeof SubagentEvents)[number]
> = contract({
  name: "agent",
  http: [AgentApi],
  ws: [SessionSend, CommandExecute, ...SubagentMessages],
  events: [...AgentEvents, ...SubagentEvents]
})
