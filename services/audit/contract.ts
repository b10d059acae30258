/**
 * The audit subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { contract } from "../../src/subsystem/contract.ts"
import { AuditApi } from "./transport/httpApi.ts"

/** The audit subsystem's contract. */
export const AuditContract = contract({ name: "audit", http: [AuditApi] })
