/**
 * The MCP tools' wire schemas (docs/agent.md "Governing agents that run
 * elsewhere (MCP)"): what an external agent sends to the gateway's MCP
 * server at `/mcp` and what it gets back. The policy check and memory reuse
 * their subsystems' own schemas; the approval request and the audit append
 * are declared here.
 *
 * @module
 */
import { Schema } from "effect"
import { AgentId } from "../shared/agent.ts"
import { bounded, type JsonBounds } from "../shared/json.ts"
import { intBetween, nonEmptyText } from "../shared/schemas.ts"

/** Shortest wait `request_approval` accepts: 1 s. */
export const MIN_APPROVAL_TIMEOUT_MS = 1_000
/** Longest wait `request_approval` accepts: 15 min (an MCP tool call is one HTTP request held open). */
export const MAX_APPROVAL_TIMEOUT_MS = 15 * 60_000

/** Limits of a caller's free-form JSON (an approval's `context`, an audit `action`): depth ≤ 16, ≤ 64 KiB, ≤ 2,000 keys and items. */
export const MCP_JSON: JsonBounds = { maxDepth: 16, maxBytes: 64 * 1024, maxEntries: 2_000 }

/** A JSON object of at most {@link MCP_JSON}. */
const JsonObject = bounded(Schema.Record(Schema.String, Schema.Unknown), MCP_JSON)

/** `request_approval`'s arguments: `{prompt, context?, timeout_ms}`. */
export const McpApprovalRequest = Schema.Struct({
  prompt: nonEmptyText(4_000).annotate({ description: "What the operator is asked to approve (1 to 4,000 characters)." }),
  context: Schema.optionalKey(JsonObject).annotate({
    description: "Any JSON object shown to the operator with the prompt (≤ 64 KiB, depth ≤ 16)."
  }),
  timeout_ms: intBetween(MIN_APPROVAL_TIMEOUT_MS, MAX_APPROVAL_TIMEOUT_MS).annotate({
    description: "How long to wait for the operator, in milliseconds (1,000 to 900,000); the approval expires then."
  })
}).annotate({ identifier: "McpApprovalRequest" })
export type McpApprovalRequest = typeof McpApprovalRequest.Type

/** How an approval requested over MCP ended. */
export const McpApprovalDecision = Schema.Literals(["approved", "denied", "expired"])
export type McpApprovalDecision = typeof McpApprovalDecision.Type

/** `request_approval`'s answer: `{approval_id, decision}`. */
export const McpApprovalResult = Schema.Struct({
  approval_id: Schema.Int.annotate({ description: "The approval's id (GET /approvals/:id)." }),
  decision: McpApprovalDecision.annotate({
    description: "approved or denied by an operator; expired when nobody decided within timeout_ms."
  })
}).annotate({ identifier: "McpApprovalResult" })
export type McpApprovalResult = typeof McpApprovalResult.Type

/** `memory_search`'s arguments: `{query, agent_id?, limit?}`. */
export const McpMemorySearchRequest = Schema.Struct({
  query: nonEmptyText(1_000).annotate({ description: "Keywords (1 to 1,000 characters)." }),
  agent_id: Schema.optionalKey(AgentId).annotate({ description: "Whose memory (default `default`)." }),
  limit: Schema.optionalKey(intBetween(1, 500)).annotate({ description: "Most hits (1 to 500, default 50)." })
}).annotate({ identifier: "McpMemorySearchRequest" })
export type McpMemorySearchRequest = typeof McpMemorySearchRequest.Type

/** An audit action: `{type, ...}` (any other JSON fields, ≤ 64 KiB). */
export const McpAuditAction = bounded(
  Schema.StructWithRest(
    Schema.Struct({ type: nonEmptyText(128).annotate({ description: "What the agent did, e.g. `file.write`." }) }),
    [Schema.Record(Schema.String, Schema.Unknown)]
  ),
  MCP_JSON
).annotate({ identifier: "McpAuditAction" })
export type McpAuditAction = typeof McpAuditAction.Type

/** `audit_append`'s arguments: `{plan_id, action}`. */
export const McpAuditAppendRequest = Schema.Struct({
  plan_id: nonEmptyText(256).annotate({ description: "An existing plan's id (POST /plan); its chain receives the record." }),
  action: McpAuditAction
}).annotate({ identifier: "McpAuditAppendRequest" })
export type McpAuditAppendRequest = typeof McpAuditAppendRequest.Type

/** `audit_append`'s answer: the chain and the recorded action's type. */
export const McpAuditAppendResult = Schema.Struct({
  plan_id: Schema.String,
  type: Schema.String,
  appended: Schema.Literal(true)
}).annotate({ identifier: "McpAuditAppendResult" })
export type McpAuditAppendResult = typeof McpAuditAppendResult.Type

/** The error codes a tool answers with (`isError: true`, the JSON `{error, message}` as its text content). */
export const McpToolErrorCode = Schema.Literals(["forbidden", "invalid_request", "not_found"])
export type McpToolErrorCode = typeof McpToolErrorCode.Type

/**
 * A tool's refusal, as the MCP client sees it: a tool result with `isError:
 * true` whose text is `{"error": <code>, "message": <why>}` (not a
 * JSON-RPC error: the call itself was well-formed).
 */
export const McpToolError = Schema.Struct({
  error: McpToolErrorCode,
  message: Schema.String
}).annotate({ identifier: "McpToolError" })
export type McpToolError = typeof McpToolError.Type

/** A tool refusal with `code` and `message`. */
export const toolError = (error: McpToolErrorCode, message: string): McpToolError => ({ error, message })
