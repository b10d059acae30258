/**
 * The sessions subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { DiagnosticsApi } from "./transport/httpApi.ts"
import { Ping, PresenceBeacon } from "./transport/wsApi.ts"
import { WsSessionEvents } from "./events.ts"

/** The sessions subsystem's contract. */
export const SessionsContract: Contract<"sessions", typeof DiagnosticsApi, typeof Ping | typeof PresenceBeacon, (typeof WsSessionEvents)[number]> = contract({ name: "sessions", http: [DiagnosticsApi], ws: [Ping, PresenceBeacon], events: WsSessionEvents })
