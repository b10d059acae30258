/**
 * The wire shapes of `GET /mcp/servers` (docs/mcp.md "Seeing the servers"): each attached MCP server, its tools and
 * its health, and the problems of `mcp.yml`.
 *
 * @module
 */
import { Schema } from "effect"

/** One tool a server offers, as the agent sees it. */
export const McpServerTool = Schema.Struct({
  name: Schema.String.annotate({ description: "The agent's tool name, `mcp_<server>_<tool>`." }),
  tool_id: Schema.String.annotate({ description: "The policy tool id, `mcp.<server>.<tool>`." }),
  description: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "McpServerTool" })
export type McpServerTool = typeof McpServerTool.Type

/** One attached server. */
export const McpServerInfo = Schema.Struct({
  name: Schema.String,
  owner: Schema.String.annotate({ description: "Who attached it: `mcp.yml` or `plugin:<id>`." }),
  transport: Schema.Literals(["stdio", "http"]),
  target: Schema.String.annotate({
    description: "The program (stdio) or the URL without its query (HTTP); arguments, environment and headers are not shown."
  }),
  status: Schema.Literals(["ready", "starting", "failed"]).annotate({
    description: "`ready`: its tools are offered; `starting`: connecting; `failed`: down, tools withdrawn, retried at `retry_at`."
  }),
  tools: Schema.Array(McpServerTool),
  skipped_tools: Schema.optionalKey(Schema.Array(Schema.String)).annotate({
    description: "Tools left out: their name does not fit `mcp_<server>_<tool>` within 64 characters."
  }),
  failures: Schema.Int.annotate({ description: "Failed attempts since it was last ready." }),
  last_error: Schema.optionalKey(Schema.String),
  retry_at: Schema.optionalKey(Schema.String).annotate({ description: "ISO time of the next attempt, while failed." }),
  ready_at: Schema.optionalKey(Schema.String).annotate({ description: "ISO time it last became ready." })
}).annotate({ identifier: "McpServerInfo" })
export type McpServerInfo = typeof McpServerInfo.Type

/** A problem of `mcp.yml`. */
export const McpConfigProblem = Schema.Struct({
  file: Schema.String,
  line: Schema.optionalKey(Schema.Int),
  message: Schema.String
}).annotate({ identifier: "McpConfigProblem" })

/** `GET /mcp/servers`. */
export const McpServersResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  servers: Schema.Array(McpServerInfo),
  errors: Schema.Array(McpConfigProblem)
}).annotate({ identifier: "McpServersResponse" })
export type McpServersResponse = typeof McpServersResponse.Type
