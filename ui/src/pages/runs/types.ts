/** The run shapes, from the declarations the server uses (services/workflow/runs/schema.ts, events.ts; nodes' evidence; artifact refs). */
export type {
  ExecutionAttempt,
  ExecutionRun,
  ExecutionStepDetail,
  RunStatus,
  WorkflowRunDetail
} from "../../../../services/workflow/runs/schema.ts"
export type { AttemptEvidence } from "../../../../services/nodes/schema.ts"
export type { ArtifactRef } from "../../../../services/artifacts/schema.ts"
import type { RunPausedPayload } from "../../../../services/workflow/events.ts"
import type { RunStatus } from "../../../../services/workflow/runs/schema.ts"

/** `run.paused`'s payload (`resume_token` only for principals holding `operator.write`). */
export type RunPaused = typeof RunPausedPayload.Type

/** Every run status, in the order the filter offers them. */
export const RUN_STATUSES: ReadonlyArray<RunStatus> = ["queued", "running", "paused", "succeeded", "failed", "cancelled"]

/** Statuses a run can still be cancelled in (`POST /workflow/cancel`). */
export const CANCELLABLE: ReadonlyArray<RunStatus> = ["queued", "running", "paused"]

/** The event types that make a run's list or detail stale (docs/api.md "Events"). */
export const RUN_EVENTS: ReadonlyArray<string> = ["run.", "step.updated", "attempt.updated"]
