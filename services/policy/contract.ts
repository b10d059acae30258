/**
 * The policy subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { PolicyApi } from "./transport/httpApi.ts"

/** The policy subsystem's contract. */
export const PolicyContract: Contract<"policy", typeof PolicyApi, never, never> = contract({ name: "policy", http: [PolicyApi] })
