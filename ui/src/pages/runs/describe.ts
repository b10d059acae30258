/**
 * Short, human descriptions of a run's attempts for tables (the full values
 * are shown as JSON beside them; a step's action: components/describeAction.ts).
 */
import type { ExecutionAttempt } from "./types.ts"

/** An attempt's duration in ms (cost's `duration_ms`, else finished − started), or undefined while it runs. */
export const durationOf = (attempt: ExecutionAttempt): number | undefined =>
  attempt.cost?.duration_ms ??
    (attempt.finished_at === null ? undefined : Date.parse(attempt.finished_at) - Date.parse(attempt.started_at))

/** The policy decision of an attempt in one word (`allow`, `require_approval`, `deny`), when it records one. */
export const decisionOf = (attempt: ExecutionAttempt): string | undefined => {
  const d = attempt.policy_decision as { decision?: unknown } | null
  return typeof d?.decision === "string" ? d.decision : undefined
}
