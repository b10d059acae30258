/**
 * The auth-profiles subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { AuthProfilesApi } from "./transport/httpApi.ts"

/** The auth-profiles subsystem's contract. */
export const AuthProfilesContract: Contract<"auth-profiles", typeof AuthProfilesApi, never, never> = contract({ name: "auth-profiles", http: [AuthProfilesApi] })
