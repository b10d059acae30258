/**
 * The routing subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { RoutingApi } from "./transport/httpApi.ts"
import { RoutingEvents } from "./events.ts"

/** The routing subsystem's contract. */
export const RoutingContract: Contract<"routing", typeof RoutingApi, never, (typeof RoutingEvents)[number]> = contract({ name: "routing", http: [RoutingApi], events: RoutingEvents })
