/**
 * The policy subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { contract } from "../../src/subsystem/contract.ts"
import { PolicyApi } from "./transport/httpApi.ts"

/** The policy subsystem's contract. */
export const PolicyContract = contract({ name: "policy", http: [PolicyApi] })
