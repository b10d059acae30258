/**
 * The gateway's MCP server at `/mcp` (issue 25 §6; docs/agent.md "Governing
 * agents that run elsewhere (MCP)"): effect/ai's `McpServer` over Streamable
 * HTTP (`McpServer.layerHttp`, one long-lived server shared by every POST),
 * mounted on the gateway's router beside the `GatewayApi` routes.
 *
 * Authentication is the gateway's own: `/mcp` is declared `authenticated`
 * (src/app/gateway.ts gives the global middleware {@link McpRoutes}'s
 * access), so no token or a bad one answers 401 like any route, and the
 * principal reaches the tools as `CurrentPrincipal`. Each tool then needs
 * the scope of the matching HTTP/WS operation; without it the call answers a
 * tool error `{"error":"forbidden",...}` (a result with `isError: true`, not
 * an HTTP or JSON-RPC failure):
 *
 * | tool | scope | as |
 * |---|---|---|
 * | `policy_check` | operator.admin | `POST /policy/check` |
 * | `request_approval` | operator.write | creating work an operator must decide (resolving needs operator.approvals) |
 * | `memory_search` | operator.read | `memory.search` |
 * | `memory_write` | operator.write | `memory.create` |
 * | `audit_append` | operator.write | a write to a plan's chain |
 * | `list_approvals` | operator.approvals | `GET /approvals` (read-only) |
 * | `list_runs` | operator.read | `GET /workflow/runs` (read-only) |
 * | `list_nodes` | operator.read | `GET /nodes` (read-only) |
 *
 * Protocol revisions: 2025-11-25, 2025-06-18, 2025-03-26 (sessions through
 * `Mcp-Session-Id`, DELETE ends one) and 2026-07-28 (sessionless, without
 * `subscriptions/listen`: the tool list never changes). Browser origins are
 * refused (403): MCP clients are programs. Sessions live in this instance's
 * memory.
 *
 * @module
 */
import { Effect, Layer, Schema } from "effect"
import { McpProtocol, McpServer, Tool, Toolkit } from "effect/ai"
import { GatewayConfig, GATEWAY_VERSION } from "../../../layers/config.ts"
import type { RouteEntry } from "../../../src/http/authorization.ts"
import { AUTHENTICATED } from "../../../src/http/api/access.ts"
import { authzDenied } from "../../audit/authEvents.ts"
import { actorOf, CurrentPrincipal, hasScope } from "../../auth/principal.ts"
import { AuditChains, Decision } from "../../domain-events/decisions.ts"
import { DomainEvents } from "../../domain-events/DomainEvents.ts"
import { ApprovalListResponse, ApprovalStatusFilter } from "../../approvals/schema.ts"
import { MemoryItemInput, MemoryItemResult, MemorySearchResult } from "../../memory/schema.ts"
import { NodeListResponse } from "../../nodes/schema.ts"
import { WorkflowRunListRequest, WorkflowRunListResponse } from "../../workflow/runs/schema.ts"
import { PolicyCheckRequest, PolicyDecision } from "../../policy/schema.ts"
import { McpGateway } from "../McpGateway.ts"
import {
  McpApprovalRequest,
  McpApprovalResult,
  McpAuditAppendRequest,
  McpAuditAppendResult,
  McpMemorySearchRequest,
  McpToolError,
  toolError
} from "../schema.ts"

/** The MCP endpoint's path. */
export const MCP_PATH = "/mcp"

/** `policy_check`: a `PolicyCheckRequest` → the decision `POST /policy/check` answers. */
export const PolicyCheckTool = Tool.make("policy_check", {
  description: "Evaluates a proposed action against the gateway's guardrails (spend, personal data, legal flags, " +
    "connector scope), exactly as POST /policy/check: `decision` is allow, require_approval or deny, with one entry " +
    "per rule. Ask before acting; on require_approval call request_approval.",
  parameters: PolicyCheckRequest,
  success: PolicyDecision,
  failure: McpToolError
}).annotate(Tool.Readonly, true)

/** `request_approval`: creates an approval and waits for the operator's decision up to `timeout_ms`. */
export const RequestApprovalTool = Tool.make("request_approval", {
  description: "Asks the gateway's operator to approve something and waits for the decision, at most timeout_ms " +
    "(1,000 to 900,000 ms). Answers {approval_id, decision}: approved, denied, or expired when nobody decided in time.",
  parameters: McpApprovalRequest,
  success: McpApprovalResult,
  failure: McpToolError
})

/** `memory_search`: ranked keyword search over an agent's memory. */
export const MemorySearchTool = Tool.make("memory_search", {
  description: "Searches an agent's memory (the gateway's memory.search): ranked keyword hits, best first, score 0..1.",
  parameters: McpMemorySearchRequest,
  success: MemorySearchResult,
  failure: McpToolError
}).annotate(Tool.Readonly, true)

/** `memory_write`: stores a memory item. */
export const MemoryWriteTool = Tool.make("memory_write", {
  description: "Stores an item in an agent's memory (the gateway's memory.create): a fact, note, procedure or episode.",
  parameters: Schema.Struct({ item: MemoryItemInput }),
  success: MemoryItemResult,
  failure: McpToolError
})

/** `audit_append`: the agent's own action record into its plan's audit chain. */
export const AuditAppendTool = Tool.make("audit_append", {
  description: "Records an action the agent took in its plan's tamper-evident audit chain (GET /audit/export/<plan_id>). " +
    "plan_id must name a plan the gateway stored; gateway.* chains are refused.",
  parameters: McpAuditAppendRequest,
  success: McpAuditAppendResult,
  failure: McpToolError
})

/** `list_approvals`: the approvals with a status (pending by default), read-only. */
export const ListApprovalsTool = Tool.make("list_approvals", {
  description: "Lists the gateway's approvals with `status` (pending, approved, denied, expired, cancelled; default " +
    "pending), oldest first, as GET /approvals: what waits for an operator and why.",
  parameters: Schema.Struct({ status: Schema.optionalKey(ApprovalStatusFilter) }),
  success: ApprovalListResponse,
  failure: McpToolError
}).annotate(Tool.Readonly, true)

/** `list_runs`: one page of workflow runs, read-only. */
export const ListRunsTool = Tool.make("list_runs", {
  description: "Lists workflow runs newest first, as GET /workflow/runs: filter by `status` and `key`, pages of " +
    "`limit` (1 to 500, default 100) with `next_cursor`. not_found while the workflow engine API is disabled.",
  parameters: WorkflowRunListRequest,
  success: WorkflowRunListResponse,
  failure: McpToolError
}).annotate(Tool.Readonly, true)

/** `list_nodes`: the paired nodes and whether they are connected, read-only. */
export const ListNodesTool = Tool.make("list_nodes", {
  description: "Lists the paired nodes with their status, capabilities and connections, as GET /nodes.",
  parameters: Tool.EmptyParams,
  success: NodeListResponse,
  failure: McpToolError
}).annotate(Tool.Readonly, true)

/** The gateway's MCP toolkit. */
export const McpGatewayToolkit = Toolkit.make(
  PolicyCheckTool,
  RequestApprovalTool,
  MemorySearchTool,
  MemoryWriteTool,
  AuditAppendTool,
  ListApprovalsTool,
  ListRunsTool,
  ListNodesTool
)

/** The scope a device token needs for each tool (the admin token needs none). */
export const TOOL_SCOPES = {
  policy_check: "operator.admin",
  request_approval: "operator.write",
  memory_search: "operator.read",
  memory_write: "operator.write",
  audit_append: "operator.write",
  list_approvals: "operator.approvals",
  list_runs: "operator.read",
  list_nodes: "operator.read"
} as const satisfies Record<keyof typeof McpGatewayToolkit.tools, string>

/** A gateway error (`InvalidRequest`, `NotFound`) as the tool error the client sees. */
const asToolError = (error: { readonly _tag: "InvalidRequest" | "NotFound"; readonly message: string }) =>
  toolError(error._tag === "NotFound" ? "not_found" : "invalid_request", error.message)

/**
 * The toolkit's handlers: each authorizes the caller, then calls
 * {@link McpGateway}. A refusal is audited as `authz.denied` (`transport:
 * "mcp"`, `route`: the tool) on the `gateway.auth` chain, like an HTTP or WS
 * one. Needs `McpGateway`, `GatewayConfig` and `DomainEvents`.
 */
export const McpGatewayHandlers = McpGatewayToolkit.toLayer(Effect.gen(function*() {
  const gateway = yield* McpGateway
  const domainEvents = yield* DomainEvents
  const { authEnabled } = yield* GatewayConfig
  /** The caller's actor, or the `forbidden` tool error when its token lacks the tool's scope. */
  const authorize = Effect.fnUntraced(function*(tool: keyof typeof TOOL_SCOPES) {
    const principal = yield* CurrentPrincipal
    if (!authEnabled) return actorOf(undefined)
    const scope = TOOL_SCOPES[tool]
    // The route authenticates every request when auth is on; no principal here is refused, never let through.
    if (principal === undefined || !hasScope(principal, scope)) {
      const reason = `insufficient scope: ${tool} requires ${scope}`
      if (principal !== undefined) {
        yield* domainEvents.publishOrLog(Decision, {
          chain: AuditChains.auth,
          action: authzDenied(principal, { transport: "mcp", route: tool, required_scope: scope, reason })
        })
      }
      return yield* Effect.fail(toolError("forbidden", reason))
    }
    return actorOf(principal)
  })
  return McpGatewayToolkit.of({
    policy_check: (request) => Effect.andThen(authorize("policy_check"), gateway.policyCheck(request)),
    request_approval: (request) =>
      Effect.flatMap(authorize("request_approval"), (actor) => gateway.requestApproval(request, actor)),
    memory_search: (request) =>
      Effect.andThen(authorize("memory_search"), Effect.mapError(gateway.memorySearch(request), asToolError)),
    memory_write: ({ item }) => Effect.andThen(authorize("memory_write"), gateway.memoryWrite(item)),
    audit_append: (request) =>
      Effect.flatMap(authorize("audit_append"), (actor) => Effect.mapError(gateway.auditAppend(request, actor), asToolError)),
    list_approvals: ({ status }) => Effect.andThen(authorize("list_approvals"), gateway.listApprovals(status)),
    list_runs: (request) => Effect.andThen(authorize("list_runs"), Effect.mapError(gateway.listRuns(request), asToolError)),
    list_nodes: () => Effect.andThen(authorize("list_nodes"), gateway.listNodes())
  })
}))

/**
 * The MCP server at {@link MCP_PATH} on the gateway's `HttpRouter`, with the
 * toolkit registered. Needs `HttpRouter`, {@link McpGateway} and `GatewayConfig`.
 */
export const McpHttp = McpServer.layerHttp({
  name: "svc-gateway",
  version: GATEWAY_VERSION,
  instructions: "The svc-gateway's guardrails: check an action with policy_check before acting, ask the operator " +
    "with request_approval when the policy requires it, record what you did with audit_append, and use " +
    "memory_search / memory_write for the agent's memory. To inspect the gateway (read-only): list_approvals, " +
    "list_runs, list_nodes.",
  path: MCP_PATH,
  protocols: [McpProtocol.v2025_11_25, McpProtocol.v2025_06_18, McpProtocol.v2025_03_26, McpProtocol.v2026_07_28],
  allowSessionTermination: true,
  // The tool list never changes: no long-lived subscription streams to hold open (or to drain at shutdown).
  allowSubscriptions: false,
  registrations: McpServer.toolkit(McpGatewayToolkit).pipe(Layer.provide(McpGatewayHandlers))
})

/** What the global HTTP middleware needs to know of `/mcp`: any valid token; the tools check their scopes. */
export const McpRoutes: ReadonlyArray<RouteEntry> = (["POST", "GET", "DELETE", "PUT", "PATCH", "OPTIONS"] as const).map((method) => ({
  method,
  path: MCP_PATH,
  access: AUTHENTICATED,
  group: "mcp",
  name: `mcp.${method.toLowerCase()}`
}))
