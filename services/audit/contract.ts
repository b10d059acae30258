/**
 * The audit subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { AuditApi } from "./transport/httpApi.ts"

/** The audit subsystem's contract. */
export const AuditContract: Contract<"audit", typeof AuditApi, never, never> = contract({ name: "audit", http: [AuditApi] })
