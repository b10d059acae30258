/**
 * The workflow engine over WebSocket (issue 12): `workflow.run`,
 * `workflow.resume`, `workflow.cancel`, operator clients with operator.write;
 * the same payloads and results as over HTTP, available whatever
 * `SVC_ENGINE_API_ENABLED` says.
 */
import {
  WorkflowCancelRequest,
  WorkflowCancelResponse,
  WorkflowResumeRequest,
  WorkflowResumeResponse,
  WorkflowRunRequest,
  WorkflowRunResponse
} from "../../../services/workflow/runs/schema.ts"
import { CLIENT, make } from "./message.ts"

/** `workflow.run`: starts a run of the steps. */
export const WorkflowRun = make("workflow.run", {
  scope: "operator.write",
  roles: CLIENT,
  payload: WorkflowRunRequest,
  result: WorkflowRunResponse
})

/** `workflow.resume`: uses a resume token (once). */
export const WorkflowResume = make("workflow.resume", {
  scope: "operator.write",
  roles: CLIENT,
  payload: WorkflowResumeRequest,
  result: WorkflowResumeResponse
})

/** `workflow.cancel`: cancels a run. */
export const WorkflowCancel = make("workflow.cancel", {
  scope: "operator.write",
  roles: CLIENT,
  payload: WorkflowCancelRequest,
  result: WorkflowCancelResponse
})
