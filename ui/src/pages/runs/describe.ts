/** Short, human descriptions of a run's parts for tables (the full values are shown as JSON beside them). */
import type { ExecutionAttempt, ExecutionStepDetail } from "./types.ts"

/** What a step does in one line: its type and its main argument (URL, command, prompt, capability…). */
export const describeAction = (action: ExecutionStepDetail["action"]): string => {
  const args = (action as { args?: Record<string, unknown> }).args ?? {}
  const main = ["url", "command", "prompt", "capability", "model", "query"]
    .map((key) => args[key])
    .find((value): value is string => typeof value === "string")
  const method = typeof args.method === "string" ? `${args.method} ` : ""
  return main === undefined ? action.type : `${action.type}: ${method}${main}`
}

/** An attempt's duration in ms (cost's `duration_ms`, else finished − started), or undefined while it runs. */
export const durationOf = (attempt: ExecutionAttempt): number | undefined =>
  attempt.cost?.duration_ms ??
    (attempt.finished_at === null ? undefined : Date.parse(attempt.finished_at) - Date.parse(attempt.started_at))

/** The policy decision of an attempt in one word (`allow`, `require_approval`, `deny`), when it records one. */
export const decisionOf = (attempt: ExecutionAttempt): string | undefined => {
  const d = attempt.policy_decision as { decision?: unknown } | null
  return typeof d?.decision === "string" ? d.decision : undefined
}
