/**
 * The models subsystem's contract (src/subsystem/Subsystem.ts): its HTTP
 * endpoints — schemas only, what the clients load. The catalog sends no
 * WebSocket events.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { ModelsApi } from "./transport/httpApi.ts"

/** The models subsystem's contract. */
export const ModelsContract: Contract<"models", typeof ModelsApi, never, never> = contract({ name: "models", http: [ModelsApi] })
