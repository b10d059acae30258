/**
 * The diagnostics subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { contract } from "../../src/subsystem/contract.ts"
import { RuntimeApi } from "./transport/httpApi.ts"

/** The diagnostics subsystem's contract. */
export const DiagnosticsContract = contract({ name: "diagnostics", http: [RuntimeApi] })
