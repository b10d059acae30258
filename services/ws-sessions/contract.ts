/**
 * The sessions subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { contract } from "../../src/subsystem/contract.ts"
import { DiagnosticsApi } from "./transport/httpApi.ts"
import { Ping, PresenceBeacon } from "./transport/wsApi.ts"
import { WsSessionEvents } from "./events.ts"

/** The sessions subsystem's contract. */
export const SessionsContract = contract({ name: "sessions", http: [DiagnosticsApi], ws: [Ping, PresenceBeacon], events: WsSessionEvents })
