/** Events of the WebSocket sessions subsystem (presence and node capabilities; reference §5.2–5.3). */
import { Schema } from "effect"
import { make, OPERATORS_READ } from "./GatewayEvent.ts"
import { CapabilityDescriptor, PresenceEntry } from "./schema.ts"

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

/** A node declared capabilities ready: `{node_id, connection_id, capabilities}` (scope `{kind:"node", node_id}`). */
export const CapabilityReadyEvent = make("capability.ready", {
  payload: Schema.Struct({
    node_id: Schema.String,
    connection_id: Schema.String,
    capabilities: Schema.Array(CapabilityDescriptor)
  }),
  audience: OPERATORS_READ
})

/** Every event type of this subsystem. */
export const WsSessionEvents = [PresenceUpserted, PresencePruned, CapabilityReadyEvent] as const
