/**
 * The workflow engine over HTTP (issue 12; docs/workflow-runs.md): runs,
 * resume by token, cancel (operator.write) and the run listing
 * (operator.read). The routes answer 404 unless `SVC_ENGINE_API_ENABLED=1`
 * (the WebSocket messages are always available).
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { NotFound } from "../../shared/errors.ts"
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
} from "../runs/schema.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, OPERATOR } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

const errors = [...REQUEST_ERRORS, wire(NotFound)]

/** `POST /workflow/run`, `POST /workflow/resume`, `POST /workflow/cancel`, `GET /workflow/runs`, `GET /workflow/runs/:run_id`. */
export const WorkflowApi = HttpApiGroup.make("workflow")
  .add(
    HttpApiEndpoint.post("run", "/workflow/run", { payload: WorkflowRunRequest, success: WorkflowRunResponse, error: errors })
      .annotateMerge(documented(
        "Starts a durable run of `steps` in the lane `(key, lane)` (runs of a lane run one at a time, in arrival " +
          "order). Each step is gated by the policy bundle in force when the run was recorded, runs with retries and " +
          "timeouts, and may pause for an approval; the run survives a restart (docs/workflow.md). Announced as " +
          "`run.queued`, `run.started`, `step.updated`, … Here: an Http step, then a `Confirm` step that pauses the run.",
        {
          body: {
            key: "agent:default:main",
            steps: [{ type: "Http", args: { url: "http://127.0.0.1:8788/healthz" } }, { type: "Confirm", args: { prompt: "Ship it?" } }]
          },
          response: { status: "ok", job_id: "job-…", run_id: "run-…", plan_id: "plan-…", key: "agent:default:main", lane: "main", steps_count: 2 }
        }
      )),
    HttpApiEndpoint.post("resume", "/workflow/resume", {
      payload: WorkflowResumeRequest,
      success: WorkflowResumeResponse,
      error: errors
    }).annotateMerge(documented(
      "Continues a paused run with its resume token: approves the pause's approval (resolved by " +
        "`{kind: \"system\", principal: \"resume_token\"}`) and revokes the token. 404 for an unknown, used, revoked " +
        "or expired token.",
      {
        needs: "`RESUME_TOKEN`: the `resume_token` of the `run.paused` event of the run above (the gateway hands it out " +
          "only there, over WebSocket, to operator clients with `operator.write`; only its digest is stored).",
        body: "{\"token\":\"$RESUME_TOKEN\"}",
        response: { status: "ok", run_id: "run-…" }
      }
    )),
    HttpApiEndpoint.post("cancel", "/workflow/cancel", {
      payload: WorkflowCancelRequest,
      success: WorkflowCancelResponse,
      error: errors
    }).annotateMerge(documented(
      "Cancels a queued, running or paused run: open steps and attempts are cancelled, its pending approvals too, and " +
        "the next run of the lane starts. `cancelled` is false when the run had already succeeded or failed.",
      {
        setup: "RUN_ID=$(curl -s \"$GW/workflow/run\" -H " + "\"authorization: Bearer $TOKEN\"" + " -d '{\"key\":\"agent:ops:main\",\"steps\":[{\"type\":\"Confirm\"}]}' | jq -r .run_id)",
        body: "{\"run_id\":\"$RUN_ID\",\"reason\":\"not needed\"}",
        response: { status: "ok", run_id: "run-…", cancelled: true }
      }
    )),
    HttpApiEndpoint.get("list", "/workflow/runs", {
      query: {
        status: Schema.optionalKey(RunStatus),
        key: Schema.optionalKey(Schema.String),
        limit: Schema.optionalKey(Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 500 }))),
        cursor: Schema.optionalKey(Schema.String)
      },
      success: WorkflowRunListResponse,
      error: errors
    }).annotateMerge(documented(
      "Lists runs, newest first, filtered by `status` and `key`; pages of `limit` (1..500) with `next_cursor`.",
      { query: "key=agent:default:main&limit=10", response: { runs: [{ run_id: "run-…", key: "agent:default:main" }] } }
    )),
    HttpApiEndpoint.get("get", "/workflow/runs/:run_id", {
      params: { run_id: Schema.String },
      success: WorkflowRunDetail,
      error: errors
    }).annotateMerge(documented(
      "One run with its steps and each step's attempts (result, error, cost, the policy decision).",
      {
        setup: "RUN_ID=$(curl -s \"$GW/workflow/runs?key=agent:default:main&limit=1\" -H " + "\"authorization: Bearer $TOKEN\"" + " | jq -r '.runs[0].run_id')",
        path: "/workflow/runs/$RUN_ID",
        response: { run: { run_id: "run-…", key: "agent:default:main" }, steps: [{ status: "succeeded" }] }
      }
    ))
  )
  .annotate(Access, OPERATOR)
  .middleware(Authentication)
  .middleware(RequestErrors)
