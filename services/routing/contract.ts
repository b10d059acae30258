/**
 * The routing subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { contract } from "../../src/subsystem/contract.ts"
import { RoutingApi } from "./transport/httpApi.ts"
import { RoutingEvents } from "./events.ts"

/** The routing subsystem's contract. */
export const RoutingContract = contract({ name: "routing", http: [RoutingApi], events: RoutingEvents })
