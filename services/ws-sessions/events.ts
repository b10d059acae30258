/** Events of the WebSocket sessions subsystem (presence; reference §5.2–5.3). */
import { Schema } from "effect"
import { make, OPERATORS_READ } from "./GatewayEvent.ts"
import { PresenceEntry } from "./schema.ts"

/** A device was seen (connect or beacon): `{entry}`. */
export const PresenceUpserted = make("presence.upserted", {
  payload: Schema.Struct({ entry: PresenceEntry }),
  audience: OPERATORS_READ
})

/** A presence entry expired: `{instance_id}`. */
export const PresencePruned = make("presence.pruned", {
  payload: Schema.Struct({ instance_id: Schema.String }),
  audience: OPERATORS_READ
})

/** Every event type of this subsystem (node capability events: services/nodes/events.ts). */
export const WsSessionEvents = [PresenceUpserted, PresencePruned] as const
