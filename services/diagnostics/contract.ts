/**
 * The diagnostics subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { RuntimeApi } from "./transport/httpApi.ts"

/** The diagnostics subsystem's contract. */
export const DiagnosticsContract: Contract<"diagnostics", typeof RuntimeApi, never, never> = contract({ name: "diagnostics", http: [RuntimeApi] })
