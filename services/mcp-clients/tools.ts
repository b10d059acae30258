/**
 * An MCP server's tools as the agent's contributed tools (services/agent/contributions.ts; docs/mcp.md "Naming and
 * policy"): tool `t` of server `s` is offered as `mcp_<s>_<t>` (characters a provider refuses become `_`), governed by
 * the policy tool id `mcp.<s>.<t>`, and matched by the policy's patterns against the canonical JSON of its arguments
 * (keys sorted, no spaces: `{"path":"/srv/a.txt"}`). A call's result is the tool's structured content when it has
 * some, else its text; a failure is `{error, message}`.
 *
 * @module
 */
import { Duration, Effect } from "effect"
import { type McpClient, type McpClientError, type McpSchema, Tool } from "effect/ai"
import { type ContributedTool, TOOL_NAME_PATTERN, type ToolFailure, toolNamePart } from "../agent/contributions.ts"
import { canonicalJson } from "../shared/canonicalJson.ts"

/** How long one tool call may take before it fails with `tool_timeout` (2 min). */
export const MCP_CALL_TIMEOUT = Duration.minutes(2)

/** The agent's name for tool `tool` of server `server`: `mcp_<server>_<tool>`. */
export const mcpToolName = (server: string, tool: string): string => `mcp_${server}_${toolNamePart(tool)}`

/** The policy tool id of tool `tool` of server `server`: `mcp.<server>.<tool>`. */
export const mcpToolId = (server: string, tool: string): string => `mcp.${server}.${tool}`

/** What the policy's patterns are matched against: the arguments as canonical JSON. */
export const mcpMatchTarget = (args: Record<string, unknown>): string => canonicalJson(args)

/** Whether a client failure means the server is gone (its process ended, its connection closed or broke). */
export const isConnectionLost = (error: McpClientError.McpClientError): boolean =>
  error.reason._tag === "TransportError" || error.reason._tag === "ClosedError"

const failure = (error: string, message: string): ToolFailure => ({ error, message })

/** A tool result's content blocks as text (non-text blocks are named, not inlined). */
export const resultText = (result: McpSchema.CallToolResult): string =>
  result.content.map((block) => {
    switch (block.type) {
      case "text":
        return block.text
      case "resource_link":
        return `${block.title ?? block.name}: ${block.uri}`
      case "resource":
        return "text" in block.resource ? block.resource.text : `[binary resource ${block.resource.uri}]`
      default:
        return `[${block.type} content]`
    }
  }).join("\n")

/** A client failure of a call as the model sees it. */
const callFailure = (server: string, tool: string, error: McpClientError.McpClientError): ToolFailure => {
  switch (error.reason._tag) {
    case "TransportError":
    case "ClosedError":
      return failure("tool_unavailable", `MCP server ${server} is down: ${error.message}`)
    case "TimeoutError":
      return failure("tool_timeout", `${tool} did not answer within ${Duration.format(MCP_CALL_TIMEOUT)}`)
    case "ValidationError":
      return failure("invalid_request", `${tool}: ${error.message}`)
    default:
      return failure("tool_failed", `${tool}: ${error.message}`)
  }
}

/** The tools of one server, and those left out because their name cannot be a tool name (too long). */
export interface ServerTools {
  readonly tools: ReadonlyArray<ContributedTool>
  readonly skipped: ReadonlyArray<string>
}

/**
 * Server `server`'s discovered `descriptors` as contributed tools calling `client`. `onLost` runs when a call finds
 * the connection gone (the supervisor withdraws the tools and reconnects).
 */
export const serverTools = (
  server: string,
  client: McpClient.McpClient,
  descriptors: ReadonlyArray<McpSchema.Tool>,
  onLost: (reason: string) => Effect.Effect<void>
): ServerTools => {
  const tools: Array<ContributedTool> = []
  const skipped: Array<string> = []
  const names = new Set<string>()
  for (const descriptor of descriptors) {
    const name = mcpToolName(server, descriptor.name)
    if (!TOOL_NAME_PATTERN.test(name) || names.has(name)) {
      skipped.push(descriptor.name)
      continue
    }
    names.add(name)
    tools.push({
      tool: Tool.dynamic(name, {
        description: descriptor.description ?? descriptor.title ?? `${descriptor.name} (MCP server ${server})`,
        parameters: descriptor.inputSchema
      }).annotate(Tool.Strict, false),
      toolId: mcpToolId(server, descriptor.name),
      matchTarget: mcpMatchTarget,
      run: (args) =>
        client.callTool({ tool: descriptor, arguments: args }, { timeout: MCP_CALL_TIMEOUT }).pipe(
          Effect.tapError((error) => (isConnectionLost(error) ? onLost(error.message) : Effect.void)),
          Effect.mapError((error) => callFailure(server, descriptor.name, error)),
          Effect.flatMap((result) =>
            result.isError === true
              ? Effect.fail(failure("tool_failed", resultText(result) || `${descriptor.name} failed`))
              : Effect.succeed(result.structuredContent ?? resultText(result))
          ),
          Effect.withSpan("McpClients.callTool", { attributes: { server, tool: descriptor.name } })
        )
    })
  }
  return { tools, skipped }
}
