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
} from "../runs/schema.ts"
import { CLIENT, make } from "../../../src/ws/api/message.ts"

/** `workflow.run`: starts a run of the steps. */
export const WorkflowRun = make("workflow.run", {
  scope: "operator.write",
  roles: CLIENT,
  payload: WorkflowRunRequest,
  result: WorkflowRunResponse,
  description: "Starts a run, like `POST /workflow/run` (available whatever `SVC_ENGINE_API_ENABLED` says).",
  example: {
    payload: { key: "agent:default:main", steps: [{ type: "Http", args: { url: "http://127.0.0.1:8788/healthz" } }] },
    result: {
      status: "ok",
      job_id: "job-5b1e",
      run_id: "run-8f2c",
      plan_id: "plan-77aa",
      request_id: "req-19d0",
      key: "agent:default:main",
      lane: "main",
      steps_count: 1
    }
  }
})

/** `workflow.resume`: uses a resume token (once). */
export const WorkflowResume = make("workflow.resume", {
  scope: "operator.write",
  roles: CLIENT,
  payload: WorkflowResumeRequest,
  result: WorkflowResumeResponse,
  description: "Continues a paused run with its resume token (once), like `POST /workflow/resume`.",
  example: { payload: { token: "q3J9m0V2…" }, result: { status: "ok", run_id: "run-8f2c" } }
})

/** `workflow.cancel`: cancels a run. */
export const WorkflowCancel = make("workflow.cancel", {
  scope: "operator.write",
  roles: CLIENT,
  payload: WorkflowCancelRequest,
  result: WorkflowCancelResponse,
  description: "Cancels a run, like `POST /workflow/cancel`.",
  example: { payload: { run_id: "run-8f2c", reason: "not needed" }, result: { status: "ok", run_id: "run-8f2c", cancelled: true } }
})
