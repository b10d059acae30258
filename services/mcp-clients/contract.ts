/**
 * The MCP clients subsystem's contract (src/subsystem/Subsystem.ts): `GET /mcp/servers` — schemas only, what the
 * clients load. It sends no WebSocket events (a server's health is also in `GET /agent/status` `tool_sources`).
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { McpClientsApi } from "./transport/httpApi.ts"

/** The MCP clients subsystem's contract. */
export const McpClientsContract: Contract<"mcp-clients", typeof McpClientsApi, never, never> = contract({
  name: "mcp-clients",
  http: [McpClientsApi]
})
