/**
 * The secrets subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { SecretsApi } from "./transport/httpApi.ts"

/** The secrets subsystem's contract. */
export const SecretsContract: Contract<"secrets", typeof SecretsApi, never, never> = contract({ name: "secrets", http: [SecretsApi] })
