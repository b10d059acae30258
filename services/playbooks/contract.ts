/**
 * The playbooks subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { PlaybooksApi } from "./transport/httpApi.ts"

/** The playbooks subsystem's contract. */
export const PlaybooksContract: Contract<"playbooks", typeof PlaybooksApi, never, never> = contract({ name: "playbooks", http: [PlaybooksApi] })
