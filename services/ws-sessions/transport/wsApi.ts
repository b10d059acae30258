/**
 * Session-level request types (gateway-api.md "WebSocket API"; reference
 * §5.3): `ping` and `presence.beacon` (any peer, no scope needed). Node
 * types (`capability.ready`, `attempt.evidence`): src/ws/api/nodes.ts.
 */
import { Schema } from "effect"
import { WsPresenceBeaconRequest, WsPresenceBeaconResult } from "../schema.ts"
import { ANY_ROLE, make } from "../../../src/ws/api/message.ts"

/** `ping` (any role): answered `{ok: true}`; also refreshes the peer's liveness. */
export const Ping = make("ping", {
  scope: null,
  roles: ANY_ROLE,
  nodeToken: true,
  payload: Schema.Unknown,
  description: "Application-level heartbeat: answered `{ok: true}` and refreshes the peer's liveness (any payload).",
  example: { payload: {} }
})

/** `presence.beacon` (any role): records the peer's presence; result `{entry}`. */
export const PresenceBeacon = make("presence.beacon", {
  scope: null,
  roles: ANY_ROLE,
  nodeToken: true,
  payload: WsPresenceBeaconRequest,
  result: WsPresenceBeaconResult,
  description: "Records the peer's presence (host, mode, version, idle time) and answers its entry; announced as " +
    "`presence.upserted`.",
  example: { payload: { host: "ops-laptop", mode: "cli", version: "1.4.0", last_input_seconds: 12 } }
})
