/**
 * Gateway-initiated request types (gateway-api.md: "approval.request and
 * task.execute are gateway-initiated requests, not events"; reference §3.4,
 * §5.3): what a peer receives and what its answer must look like.
 */
import { Schema } from "effect"
import { ApprovalRequestPayload, WsApprovalDecision } from "../../../services/approvals/schema.ts"
import { initiated, NODE, CLIENT, ANY_ROLE } from "./message.ts"

/** `ping` from the gateway (the JSON heartbeat): any answer will do. */
export const PingPeer = initiated("ping", { roles: ANY_ROLE, payload: Schema.Unknown, result: Schema.Unknown })

/** `task.execute` (to nodes): run an action; answer `{result?, evidence?}` or an error with `details.evidence`. */
export const TaskExecute = initiated("task.execute", {
  roles: NODE,
  payload: Schema.StructWithRest(
    Schema.Struct({
      run_id: Schema.String,
      step_id: Schema.String,
      attempt_id: Schema.String,
      action: Schema.Unknown.annotate({ description: "The ActionPrimitive to perform." })
    }),
    [Schema.Record(Schema.String, Schema.Unknown)]
  ),
  result: Schema.Struct({ result: Schema.optionalKey(Schema.Unknown), evidence: Schema.optionalKey(Schema.Unknown) })
})

/**
 * `approval.request` (to operator clients holding operator.approvals; request_id `approval-<id>`): decide an
 * approval; answer `{approved, reason?}` (reference's WsApprovalDecision). See docs/approvals.md.
 */
export const ApprovalRequest = initiated("approval.request", {
  roles: CLIENT,
  payload: ApprovalRequestPayload,
  result: WsApprovalDecision
})
