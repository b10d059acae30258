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
} from "../../../services/approvals/schema.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { Access, scope } from "./access.ts"
import { REQUEST_ERRORS, wire } from "./errors.ts"

const params = { id: ApprovalIdFromString }
const errors = [...REQUEST_ERRORS, wire(NotFound)]

/** `GET /approvals`, `GET /approvals/:id`, `POST /approvals/:id/respond`, `GET /approvals/:id/preview`. */
export const ApprovalsApi = HttpApiGroup.make("approvals")
  .add(
    HttpApiEndpoint.get("list", "/approvals", {
      query: { status: Schema.optionalKey(ApprovalStatusFilter) },
      success: ApprovalListResponse,
      error: REQUEST_ERRORS
    }),
    HttpApiEndpoint.get("get", "/approvals/:id", { params, success: ApprovalGetResponse, error: errors }),
    HttpApiEndpoint.post("respond", "/approvals/:id/respond", {
      params,
      payload: ApprovalRespondRequest,
      success: ApprovalRespondResponse,
      error: errors
    }),
    HttpApiEndpoint.get("preview", "/approvals/:id/preview", { params, success: ApprovalPreview, error: errors })
  )
  .annotate(Access, scope("operator.approvals"))
