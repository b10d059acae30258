/**
 * The auth subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { AuthApi } from "./transport/httpApi.ts"

/** The auth subsystem's contract. */
export const AuthContract: Contract<"auth", typeof AuthApi, never, never> = contract({ name: "auth", http: [AuthApi] })
