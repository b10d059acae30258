/**
 * The tools an agent's model may call (issue 25 §2 "Tools"; docs/agent.md
 * "Tools and policy"): each an `effect/ai` `Tool` with a Schema, mapped to the
 * policy tool id the gateway's policy bundle governs, with what the policy's
 * patterns are matched against:
 *
 * | tool | policy tool id | match target |
 * |---|---|---|
 * | `memory_search` | `tool.memory.search` | the query |
 * | `memory_create` | `tool.memory.write` | the title (else the body's first 200 characters) |
 * | `work_create` | `tool.work.write` | the title |
 * | `work_transition` | `tool.work.write` | `<work_item_id> <status>` |
 * | `http_fetch` | `tool.http.fetch` (the workflow Http step's) | the URL (also checked against `network_egress`) |
 * | `workflow_run` | `tool.workflow.run` | the steps' types, comma-separated (each step is checked again by the engine) |
 *
 * Beyond these built-ins, tools contributed through `AgentContributions` (contributions.ts): `node_<capability>`
 * (nodeTools.ts), plugin and MCP tools.
 *
 * Names follow the providers' rules (letters, digits, `_`, `-`). A tool's
 * result larger than {@link TOOL_RESULT_CAP} characters is cut with a note.
 *
 * @module
 */
import { Schema } from "effect"
import { Tool } from "effect/ai"
import { MAX_STEPS, WorkflowStep } from "../workflow/runs/schema.ts"

/** Largest tool result handed back to the model, in characters of its JSON; longer is truncated with a note. */
export const TOOL_RESULT_CAP = 16_384

/** A tool's failure as the model sees it: `{error, message}` (`policy_denied`, `invalid_request`, `not_found`, …). */
export const ToolFailure = Schema.Struct({ error: Schema.String, message: Schema.String })

const common = { success: Schema.Unknown, failure: ToolFailure, failureMode: "return" as const }

/** `memory_search {query, limit?}`: the agent's memory items ranked for `query`. */
export const MemorySearchTool = Tool.make("memory_search", {
  description: "Search your long-term memory (facts, notes, procedures, episodes) by keywords; best matches first.",
  parameters: Schema.Struct({
    query: Schema.String.annotate({ description: "Keywords to look for" }),
    limit: Schema.optionalKey(Schema.Int.annotate({ description: "At most this many hits (1-20, default 5)" }))
  }),
  ...common
})

/** `memory_create {title?, body_md, tags?}`: stores a note in the agent's memory. */
export const MemoryCreateTool = Tool.make("memory_create", {
  description: "Remember something for later: stores a note in your long-term memory.",
  parameters: Schema.Struct({
    title: Schema.optionalKey(Schema.String.annotate({ description: "A short title" })),
    body_md: Schema.String.annotate({ description: "What to remember (Markdown)" }),
    tags: Schema.optionalKey(Schema.Array(Schema.String).annotate({ description: "Tags to find it by" }))
  }),
  ...common
})

/** `work_create {title, kind?, priority?}`: a work item on the agent's board (backlog). */
export const WorkCreateTool = Tool.make("work_create", {
  description: "Create a work item on your board (it starts in the backlog).",
  parameters: Schema.Struct({
    title: Schema.String,
    kind: Schema.optionalKey(Schema.Literals(["action", "initiative"])),
    priority: Schema.optionalKey(Schema.Int.annotate({ description: "0 (highest) to 10" }))
  }),
  ...common
})

/** `work_transition {work_item_id, status, reason?}`: moves a work item (the board's state machine and WIP limit apply). */
export const WorkTransitionTool = Tool.make("work_transition", {
  description: "Move one of your work items to another status (backlog, ready, doing, blocked, done, failed, cancelled).",
  parameters: Schema.Struct({
    work_item_id: Schema.String,
    status: Schema.Literals(["backlog", "ready", "doing", "blocked", "done", "failed", "cancelled"]),
    reason: Schema.optionalKey(Schema.String)
  }),
  ...common
})

/** `http_fetch {url}`: a GET of an http(s) URL (egress rules apply); status, content type and the body's start. */
export const HttpFetchTool = Tool.make("http_fetch", {
  description: "Fetch a web page or API with HTTP GET; answers the status, content type and the body (truncated).",
  parameters: Schema.Struct({ url: Schema.String.annotate({ description: "An http:// or https:// URL" }) }),
  ...common
})

/** `workflow_run {steps}`: starts a durable workflow run of ActionPrimitives under the agent's key (`agent:<id>:main`). */
export const WorkflowRunTool = Tool.make("workflow_run", {
  description: "Start a durable workflow run: a list of steps (ActionPrimitives such as Http or Confirm) that the " +
    "gateway runs with retries, approvals and its own policy checks per step. Answers the run id; the run goes on " +
    "after this turn.",
  parameters: Schema.Struct({ steps: Schema.Array(WorkflowStep).check(Schema.isMinLength(1), Schema.isMaxLength(MAX_STEPS)) }),
  ...common
})

/** Every built-in tool, with its policy tool id. */
export const AGENT_TOOLS = [
  { tool: MemorySearchTool, toolId: "tool.memory.search" },
  { tool: MemoryCreateTool, toolId: "tool.memory.write" },
  { tool: WorkCreateTool, toolId: "tool.work.write" },
  { tool: WorkTransitionTool, toolId: "tool.work.write" },
  { tool: HttpFetchTool, toolId: "tool.http.fetch" },
  { tool: WorkflowRunTool, toolId: "tool.workflow.run" }
] as const

/** A built-in tool's name. */
export type AgentToolName = (typeof AGENT_TOOLS)[number]["tool"]["name"]

/** The policy tool id of tool `name`, or `undefined` for an unknown tool. */
export const toolIdOf = (name: string): string | undefined => AGENT_TOOLS.find((t) => t.tool.name === name)?.toolId

/** What a tool call's policy patterns are matched against (the table of the module documentation). */
export const matchTargetOf = (name: string, args: Record<string, unknown>): string => {
  const text = (value: unknown) => (typeof value === "string" ? value : "")
  switch (name) {
    case "memory_search":
      return text(args.query)
    case "memory_create":
      return text(args.title) || text(args.body_md).slice(0, 200)
    case "work_create":
      return text(args.title)
    case "work_transition":
      return `${text(args.work_item_id)} ${text(args.status)}`
    case "http_fetch":
      return text(args.url)
    case "workflow_run":
      return Array.isArray(args.steps) ? args.steps.map((step) => text((step as { type?: unknown }).type)).join(",") : ""
    default:
      return ""
  }
}

/** `value` as the model gets it: JSON up to {@link TOOL_RESULT_CAP} characters, else cut with a note. */
export const capResult = (value: unknown): unknown => {
  const json = JSON.stringify(value) ?? "null"
  if (json.length <= TOOL_RESULT_CAP) return value
  return { truncated: true, note: `result truncated to ${TOOL_RESULT_CAP} of ${json.length} characters`, json: json.slice(0, TOOL_RESULT_CAP) }
}
