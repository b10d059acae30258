/**
 * What the policy gate evaluates for a step (issue 12 §2 "Policy gate";
 * docs/workflow-executors.md "Tool mapping"): each action kind maps to a tool
 * id and a match target for `PolicyBundle.evaluateToolCall`, and `Http` also
 * to the egress URL.
 *
 * | Step | tool_id | tool_match_target | url |
 * |---|---|---|---|
 * | `Confirm` | — (not gated: it is itself an approval) | | |
 * | any step with `args.capability`, `Web`, `Android`, `Desktop`, `Node` | `tool.node.dispatch` | the capability | |
 * | `Http` | `tool.http.fetch` | the URL, userinfo removed, credential query values `[redacted]` (`policyUrl`) | the same URL; `secret_handles` of its headers |
 * | `CLI` | `tool.exec` | the command line | |
 * | any other kind | `tool.<kind lowercased>` | `""` | |
 *
 * @module
 */
import type { ActionPrimitive, ActionPrimitiveKind } from "../../planner/schema.ts"
import { argvOf } from "./CliExecutor.ts"
import { secretHandlesOf } from "./httpArgs.ts"
import { policyUrl } from "./httpRedaction.ts"
import { capabilityOf, runsOnNode } from "./NodeExecutor.ts"

/** The part of `ToolCallInput` that depends on the step. */
export interface StepToolCall {
  readonly tool_id: string
  readonly tool_match_target: string
  readonly url?: string
  /** The secret handles the step's headers reference (`Http`), when any: their scopes are the call's `secret_scopes`. */
  readonly secret_handles?: ReadonlyArray<string>
}

/** Tool ids of the mapping. */
export const HTTP_TOOL_ID = "tool.http.fetch"
export const EXEC_TOOL_ID = "tool.exec"
export const NODE_DISPATCH_TOOL_ID = "tool.node.dispatch"

/** The tool id of a kind without a dedicated mapping: `tool.<kind lowercased>`. */
export const genericToolId = (kind: ActionPrimitiveKind): string => `tool.${kind.toLowerCase()}`

/**
 * A command line for matching: the argv joined with spaces; an argument that
 * is empty or holds whitespace, a quote or a backslash is written as a JSON
 * string (`echo "a b"`).
 */
export const commandLine = (argv: ReadonlyArray<string>): string =>
  argv.map((arg) => arg === "" || /[\s"'\\]/.test(arg) ? JSON.stringify(arg) : arg).join(" ")

/** The policy tool call for `action`, or `undefined` for `Confirm` (never gated). */
export const toolCallOf = (action: ActionPrimitive): StepToolCall | undefined => {
  if (action.type === "Confirm") return undefined
  if (runsOnNode(action)) return { tool_id: NODE_DISPATCH_TOOL_ID, tool_match_target: capabilityOf(action) ?? "" }
  switch (action.type) {
    case "Http": {
      const url = typeof action.args.url === "string" ? policyUrl(action.args.url.trim()) : ""
      const secret_handles = secretHandlesOf(action.args)
      return { tool_id: HTTP_TOOL_ID, tool_match_target: url, url, ...(secret_handles.length > 0 ? { secret_handles } : {}) }
    }
    case "CLI": {
      const argv = argvOf(action.args)
      return { tool_id: EXEC_TOOL_ID, tool_match_target: typeof argv === "string" ? "" : commandLine(argv) }
    }
    default:
      return { tool_id: genericToolId(action.type), tool_match_target: "" }
  }
}
