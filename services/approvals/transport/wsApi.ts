/**
 * Approvals over WebSocket (gateway-api.md message table; reference §3.4):
 * `approval.list` and `approval.resolve`, operator clients only, device
 * tokens need operator.approvals. Results are the same approval record as
 * over HTTP.
 */
import {
  ApprovalListRequest,
  ApprovalListResult,
  ApprovalResolveRequest,
  ApprovalRespondResponse
} from "../schema.ts"
import { CLIENT, make } from "../../../src/ws/api/message.ts"

/** `approval.list`: one page (`limit` 1..500, default 100) of approvals by `created_at`; `next_cursor` when more remain. */
export const ApprovalList = make("approval.list", {
  scope: "operator.approvals",
  roles: CLIENT,
  payload: ApprovalListRequest,
  result: ApprovalListResult,
  description: "One page of approvals by `created_at` (filters: status, kinds, key, lane, run id; `limit` 1..500, " +
    "default 100); `next_cursor` while more remain.",
  example: { payload: { status: "pending", limit: 20 }, result: { approvals: [] } }
})

/** `approval.resolve`: approve or deny (idempotent once terminal); result `{approval, created_overrides?}`. */
export const ApprovalResolve = make("approval.resolve", {
  scope: "operator.approvals",
  roles: CLIENT,
  payload: ApprovalResolveRequest,
  result: ApprovalRespondResponse,
  description: "Approves or denies an approval, like `POST /approvals/:id/respond` (idempotent once decided); " +
    "answers `{approval, created_overrides?}`.",
  example: { payload: { approval_id: 1, decision: "approved", reason: "ok" } }
})
