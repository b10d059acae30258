/**
 * The workflow engine over HTTP (issue 12; docs/workflow-runs.md): runs,
 * resume by token, cancel (operator.write) and the run listing
 * (operator.read). The routes answer 404 unless `SVC_ENGINE_API_ENABLED=1`
 * (the WebSocket messages are always available).
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { NotFound } from "../../../services/shared/errors.ts"
import {
  RunStatus,
  WorkflowCancelRequest,
  WorkflowCancelResponse,
  WorkflowResumeRequest,
  WorkflowResumeResponse,
  WorkflowRunDetail,
  WorkflowRunListResponse,
  WorkflowRunRequest,
  WorkflowRunResponse
} from "../../../services/workflow/runs/schema.ts"
import { Access, OPERATOR } from "./access.ts"
import { REQUEST_ERRORS, wire } from "./errors.ts"

const errors = [...REQUEST_ERRORS, wire(NotFound)]

/** `POST /workflow/run`, `POST /workflow/resume`, `POST /workflow/cancel`, `GET /workflow/runs`, `GET /workflow/runs/:run_id`. */
export const WorkflowApi = HttpApiGroup.make("workflow")
  .add(
    HttpApiEndpoint.post("run", "/workflow/run", { payload: WorkflowRunRequest, success: WorkflowRunResponse, error: errors }),
    HttpApiEndpoint.post("resume", "/workflow/resume", {
      payload: WorkflowResumeRequest,
      success: WorkflowResumeResponse,
      error: errors
    }),
    HttpApiEndpoint.post("cancel", "/workflow/cancel", {
      payload: WorkflowCancelRequest,
      success: WorkflowCancelResponse,
      error: errors
    }),
    HttpApiEndpoint.get("list", "/workflow/runs", {
      query: {
        status: Schema.optionalKey(RunStatus),
        key: Schema.optionalKey(Schema.String),
        limit: Schema.optionalKey(Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 500 }))),
        cursor: Schema.optionalKey(Schema.String)
      },
      success: WorkflowRunListResponse,
      error: errors
    }),
    HttpApiEndpoint.get("get", "/workflow/runs/:run_id", {
      params: { run_id: Schema.String },
      success: WorkflowRunDetail,
      error: errors
    })
  )
  .annotate(Access, OPERATOR)
