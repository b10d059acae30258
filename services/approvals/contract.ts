/**
 * The approvals subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { ApprovalsApi } from "./transport/httpApi.ts"
import { ApprovalList, ApprovalResolve } from "./transport/wsApi.ts"
import { ApprovalEvents } from "./events.ts"

/** The approvals subsystem's contract. */
export const ApprovalsContract: Contract<"approvals", typeof ApprovalsApi, typeof ApprovalList | typeof ApprovalResolve, (typeof ApprovalEvents)[number]> = contract({ name: "approvals", http: [ApprovalsApi], ws: [ApprovalList, ApprovalResolve], events: ApprovalEvents })
