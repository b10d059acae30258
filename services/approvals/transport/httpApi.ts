/**
 * Approvals over HTTP (gateway-api.md "Approvals"; docs/approvals.md): device
 * tokens need operator.approvals (rule 2). Every route answers the same
 * approval record as the WebSocket API; none exposes an internal token.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import {
  ApprovalGetResponse,
  ApprovalIdFromString,
  ApprovalListResponse,
  ApprovalPreview,
  ApprovalRespondRequest,
  ApprovalRespondResponse,
  ApprovalStatusFilter
} from "../schema.ts"
import { NotFound } from "../../shared/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

const params = { id: ApprovalIdFromString }
const errors = [...REQUEST_ERRORS, wire(NotFound)]

/** `GET /approvals`, `GET /approvals/:id`, `POST /approvals/:id/respond`, `GET /approvals/:id/preview`. */
export const ApprovalsApi = HttpApiGroup.make("approvals")
  .add(
    HttpApiEndpoint.get("list", "/approvals", {
      query: { status: Schema.optionalKey(ApprovalStatusFilter) },
      success: ApprovalListResponse,
      error: REQUEST_ERRORS
    }).annotateMerge(documented(
      "Lists approvals, oldest first, optionally only those with `status` (`pending`, `approved`, `denied`, " +
        "`expired`, `cancelled`).",
      { query: "status=pending", response: { approvals: [{ id: 1, kind: "spend", status: "pending", plan_id: "plan-…" }] } }
    )),
    HttpApiEndpoint.get("get", "/approvals/:id", { params, success: ApprovalGetResponse, error: errors }).annotateMerge(documented(
      "One approval record: its kind, status, prompt, context, expiry and resolution. 404 for an unknown id.",
      { path: "/approvals/1", response: { approval: { id: 1, kind: "spend", status: "pending", resolution: null } } }
    )),
    HttpApiEndpoint.post("respond", "/approvals/:id/respond", {
      params,
      payload: ApprovalRespondRequest,
      success: ApprovalRespondResponse,
      error: errors
    }).annotateMerge(documented(
      "Approves or denies a pending approval (`decision`, or the reference's `approved: true|false`), with an " +
        "optional `reason`. `mode: \"always\"` on a policy approval also creates the suggested (or given) overrides. " +
        "Idempotent once decided: answering again returns the record as it is. A run waiting for it continues or is " +
        "cancelled; announced as `approval.resolved`.",
      {
        path: "/approvals/1/respond",
        body: { decision: "approved", reason: "within this month's budget" },
        response: { approval: { id: 1, status: "approved", resolution: { decision: "approved", reason: "within this month's budget" } } }
      }
    )),
    HttpApiEndpoint.get("preview", "/approvals/:id/preview", { params, success: ApprovalPreview, error: errors }).annotateMerge(documented(
      "The approval as an operator UI shows it before deciding: plan, step, prompt, context, status and expiry.",
      { path: "/approvals/1/preview", response: { id: 1, status: "approved", prompt: "…" } }
    ))
  )
  .annotate(Access, scope("operator.approvals"))
  .middleware(Authentication)
  .middleware(RequestErrors)
