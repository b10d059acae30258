/** Events of the WebSocket sessions subsystem (presence; reference §5.2–5.3). */
import { Schema } from "effect"
import { make, OPERATORS_READ } from "./GatewayEvent.ts"
import { PresenceEntry } from "./schema.ts"

/**
 * Devices were seen (connect or beacon): `{entry}`, the most recent; when
 * several were coalesced into one announcement, `entries` lists each of them
 * once (latest state, `entry` last). docs/websocket.md "Presence and connections".
 */
export const PresenceUpserted = make("presence.upserted", {
  payload: Schema.Struct({ entry: PresenceEntry, entries: Schema.optional(Schema.Array(PresenceEntry)) }),
  audience: OPERATORS_READ
})

/** Presence entries expired: `{instance_id}` (the last), and `instance_ids` (all of them) when several expired at once. */
export const PresencePruned = make("presence.pruned", {
  payload: Schema.Struct({ instance_id: Schema.String, instance_ids: Schema.optional(Schema.Array(Schema.String)) }),
  audience: OPERATORS_READ
})

/**
 * `error {code, message}`: a problem with something the peer sent that has no
 * response to carry it (invalid JSON, an invalid answer to a gateway-initiated
 * request). Sent only to that peer (`EventBus.sendTo`), never broadcast.
 */
export const ErrorEvent = make("error", {
  payload: Schema.Struct({ code: Schema.String, message: Schema.String }),
  audience: { roles: [] }
})

/** Every event type of this subsystem (node capability events: services/nodes/events.ts). */
export const WsSessionEvents = [PresenceUpserted, PresencePruned] as const
