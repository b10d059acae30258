/** A step's action in one line, for tables (runs and playbook dry runs; the full value is shown as JSON beside it). */
import type { ExecutionStepDetail } from "../../../services/workflow/runs/schema.ts"

/** What a step does in one line: its type and its main argument (URL, command, prompt, capability…). */
export const describeAction = (action: ExecutionStepDetail["action"]): string => {
  const args = (action as { args?: Record<string, unknown> }).args ?? {}
  const main = ["url", "command", "prompt", "capability", "model", "query"]
    .map((key) => args[key])
    .find((value): value is string => typeof value === "string")
  const method = typeof args.method === "string" ? `${args.method} ` : ""
  return main === undefined ? action.type : `${action.type}: ${method}${main}`
}
