/**
 * The gateway's WebSocket API: every request type a peer may send
 * ({@link WsMessages}: handled; {@link PlannedWsMessages}: declared, not handled
 * yet) and every request the gateway sends ({@link WsInitiatedRequests}).
 * Dispatch and authorization (src/ws/dispatch.ts) and the client SDK's typed
 * maps (src/client/types.ts) derive from these lists. Schemas only: clients
 * can load this module.
 */
import { ApprovalList, ApprovalResolve } from "../../../services/approvals/transport/wsApi.ts"
import { ApprovalRequest, PingPeer, TaskExecute } from "./initiated.ts"
import { WorkflowCancel, WorkflowResume, WorkflowRun } from "../../../services/workflow/transport/wsApi.ts"
import type { InitiatedMap, RequestMap } from "./message.ts"
import { PairingApprove, PairingDeny, PairingRevoke } from "../../../services/pairing/transport/wsApi.ts"
import { AttemptEvidence, CapabilityReady } from "../../../services/nodes/transport/wsApi.ts"
import { Ping, PresenceBeacon } from "../../../services/ws-sessions/transport/wsApi.ts"

export { PlannedWsMessages } from "./planned.ts"

/** Handled request types. Add a subsystem's declarations here. */
export const WsMessages = [Ping, PresenceBeacon, CapabilityReady, AttemptEvidence, ApprovalList, ApprovalResolve, PairingApprove, PairingDeny, PairingRevoke, WorkflowRun, WorkflowResume, WorkflowCancel] as const

/** Requests the gateway sends to peers. */
export const WsInitiatedRequests = [PingPeer, TaskExecute, ApprovalRequest] as const

/** Payload and result of every handled request type, by type. */
export type GatewayRequestMap = RequestMap<(typeof WsMessages)[number]>

/** Payload and expected result of every gateway-initiated request, by type. */
export type GatewayInitiatedRequestMap = InitiatedMap<(typeof WsInitiatedRequests)[number]>
