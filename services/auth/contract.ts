/**
 * The auth subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { contract } from "../../src/subsystem/contract.ts"
import { AuthApi } from "./transport/httpApi.ts"

/** The auth subsystem's contract. */
export const AuthContract = contract({ name: "auth", http: [AuthApi] })
