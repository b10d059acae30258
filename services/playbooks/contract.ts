/**
 * The playbooks subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { contract } from "../../src/subsystem/contract.ts"
import { PlaybooksApi } from "./transport/httpApi.ts"

/** The playbooks subsystem's contract. */
export const PlaybooksContract = contract({ name: "playbooks", http: [PlaybooksApi] })
