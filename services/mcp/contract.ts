/**
 * The MCP subsystem's contract (src/subsystem/Subsystem.ts): empty. Its one
 * endpoint, `/mcp`, speaks the Model Context Protocol, not the gateway's
 * HTTP API, so it is not part of `GatewayApi` (its tools' schemas are in
 * schema.ts, served by the MCP server's `tools/list`).
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"

/** The MCP subsystem's contract. */
export const McpContract: Contract<"mcp", never, never, never> = contract({ name: "mcp" })
