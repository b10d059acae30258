/**
 * The watchers subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { WatchersApi } from "./transport/httpApi.ts"
import { WatcherEvents } from "./events.ts"

/** The watchers subsystem's contract. */
export const WatchersContract: Contract<"watchers", typeof WatchersApi, never, (typeof WatcherEvents)[number]> = contract({ name: "watchers", http: [WatchersApi], events: WatcherEvents })
