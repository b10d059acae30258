/**
 * The MCP clients subsystem's descriptor (docs/architecture.md "Subsystems"): MCP servers as the agent's tool sources
 * (docs/mcp.md). Not to be confused with `services/mcp/`, the gateway's own MCP server at `/mcp`.
 *
 * @module
 */
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { McpClientsContract } from "./contract.ts"
import { McpClients } from "./McpClients.ts"
import { McpClientsHttp, McpClientsSwitch } from "./transport/http.ts"

/** The MCP clients subsystem (src/subsystem/Subsystem.ts): what the composition root needs of it. */
export const McpClientsSubsystem: Subsystem<
  typeof McpClientsContract,
  typeof McpClients.layer,
  typeof McpClientsHttp,
  never,
  never,
  never
> = subsystem({
  contract: McpClientsContract,
  layer: McpClients.layer,
  http: [McpClientsHttp],
  switches: [McpClientsSwitch]
})
