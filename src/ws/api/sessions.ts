/**
 * Session-level request types (gateway-api.md "WebSocket API"; reference
 * §5.3): `ping`, `presence.beacon` (any peer, no scope needed) and
 * `capability.ready` (nodes only, no scope needed, as the spec says).
 */
import { Schema } from "effect"
import {
  WsCapabilityReadyRequest,
  WsPresenceBeaconRequest,
  WsPresenceBeaconResult
} from "../../../services/ws-sessions/schema.ts"
import { ANY_ROLE, make, NODE } from "./message.ts"

/** `ping` (any role): answered `{ok: true}`; also refreshes the peer's liveness. */
export const Ping = make("ping", { scope: null, roles: ANY_ROLE, payload: Schema.Unknown })

/** `presence.beacon` (any role): records the peer's presence; result `{entry}`. */
export const PresenceBeacon = make("presence.beacon", {
  scope: null,
  roles: ANY_ROLE,
  payload: WsPresenceBeaconRequest,
  result: WsPresenceBeaconResult
})

/** `capability.ready` (nodes): the ready set becomes advertised ∩ declared; broadcasts `capability.ready`. */
export const CapabilityReady = make("capability.ready", { scope: null, roles: NODE, payload: WsCapabilityReadyRequest })
