/**
 * The MCP subsystem's descriptor (docs/architecture.md "Subsystems"): the
 * gateway's guardrails for agents that run elsewhere, as an MCP server at
 * `/mcp` (transport/mcp.ts; docs/agent.md "Governing agents that run
 * elsewhere (MCP)").
 *
 * @module
 */
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { McpContract } from "./contract.ts"
import { MCP_CHAIN, McpGateway } from "./McpGateway.ts"
import { McpHttp, McpRoutes } from "./transport/mcp.ts"

const layer = McpGateway.layer

/**
 * The MCP subsystem (src/subsystem/Subsystem.ts): its service, and the MCP
 * endpoint served on the gateway's router beside `GatewayApi`, authenticated
 * by the global middleware with the access of {@link McpRoutes}.
 */
export const McpSubsystem: Subsystem<typeof McpContract, typeof layer, never, never, never, typeof McpHttp> = subsystem({
  contract: McpContract,
  layer,
  routes: [{ layer: McpHttp, access: McpRoutes }],
  auditChains: [MCP_CHAIN]
})
