/**
 * Events of the workflow engine (issue 12). `run.paused` carries the pause's
 * resume token, the only place it is ever handed out (only its digest is
 * stored), so it goes to operator clients holding `operator.write` (the admin
 * token always), never to readers, and never into a record or a log.
 *
 * @module
 */
import { Schema } from "effect"
import { type Audience, make } from "../ws-sessions/GatewayEvent.ts"

/** Operator clients holding `operator.write` (the admin token always): who may resume runs. */
export const RUN_WRITERS: Audience = { roles: ["client"], requiredScopes: ["operator.write"] }

/**
 * A run paused at a `Confirm` step, waiting for `approval_id`:
 * `{run_id, step_index, reason, approval_id, resume_token}` (envelope scope `{kind: "run", run_id}`).
 * Approving the approval or presenting `resume_token` to `POST /workflow/resume` continues the run.
 */
export const RunPaused = make("run.paused", {
  payload: Schema.Struct({
    run_id: Schema.String,
    step_index: Schema.Int,
    reason: Schema.String,
    approval_id: Schema.Int,
    resume_token: Schema.String
  }),
  audience: RUN_WRITERS
})

/** Every event type of this subsystem. */
export const WorkflowEvents = [RunPaused] as const
