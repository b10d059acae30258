/**
 * Gateway-initiated request types (gateway-api.md: "approval.request and
 * task.execute are gateway-initiated requests, not events"; reference §3.4,
 * §5.3): what a peer receives and what its answer must look like.
 */
import { Schema } from "effect"
import { ApprovalRequestPayload, WsApprovalDecision } from "../../../services/approvals/schema.ts"
import { WsTaskExecutePayload, WsTaskExecuteResult } from "../../../services/nodes/schema.ts"
import { initiated, NODE, CLIENT, ANY_ROLE } from "./message.ts"

/** `ping` from the gateway (the JSON heartbeat): any answer will do. */
export const PingPeer = initiated("ping", { roles: ANY_ROLE, payload: Schema.Unknown, result: Schema.Unknown })

/** `task.execute` (to nodes; request_id `task-<uuid>`): run an action; answer `{result?, evidence?}` or an error with `details.evidence` (docs/nodes.md). */
export const TaskExecute = initiated("task.execute", {
  roles: NODE,
  payload: WsTaskExecutePayload,
  result: WsTaskExecuteResult
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

/** Requests the gateway sends to peers. */
export const WsInitiatedRequests = [PingPeer, TaskExecute, ApprovalRequest] as const
