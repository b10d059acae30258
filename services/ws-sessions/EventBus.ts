/**
 * Gateway events over WebSocket (gateway-api.md "Events"): the envelope
 * `{event_id, type, occurred_at, payload, scope?}` is built and serialized
 * once, then delivered to every live connection in the event's declared
 * audience. Used by every subsystem that emits events; each event type is
 * declared once (`GatewayEvent.make`) with its payload schema and audience.
 * A typed view over the {@link Backplane} (which does the delivery, on this
 * instance or across instances).
 */
import { Context, Effect, Layer } from "effect"
import { Backplane } from "../backplane/Backplane.ts"
import type { ConnectionEntry, Published } from "../backplane/schema.ts"
import type { GatewayEvent } from "./GatewayEvent.ts"

export { eventEnvelope, inAudience } from "../backplane/envelope.ts"
export type { Published } from "../backplane/schema.ts"

/** The event bus: declared events, delivered by the {@link Backplane}. */
export class EventBus extends Context.Service<EventBus, {
  /**
   * Publishes one event of a declared type to the live connections of its
   * audience. `payload` is the event's payload as typed by its schema (plain
   * JSON: it is serialized as is); `scope` is the envelope's optional scope
   * (reference §5.1, e.g. `{kind: "node", node_id}`).
   */
  readonly publish: <Type extends string, Payload extends GatewayEvent["payload"]>(
    event: GatewayEvent<Type, Payload>,
    payload: Payload["Type"],
    scope?: unknown
  ) => Effect.Effect<Published>
  /**
   * Sends one event of a declared type to exactly `connections`, whatever
   * its audience (direct deliveries: a node's own scoped token, an error
   * event to the peer that caused it). Never broadcast.
   */
  readonly sendTo: <Type extends string, Payload extends GatewayEvent["payload"]>(
    connections: Iterable<ConnectionEntry>,
    event: GatewayEvent<Type, Payload>,
    payload: Payload["Type"],
    scope?: unknown
  ) => Effect.Effect<Published>
}>()("svc-gateway/ws-sessions/EventBus") {
  /** A view over the {@link Backplane}; needs it. */
  static readonly layerNoDeps = Layer.effect(
    EventBus,
    Effect.gen(function*() {
      const backplane = yield* Backplane
      return EventBus.of({
        publish: /* hot path (every request or message): no span, docs/performance.md "Spans on the hot path" */ ((event, payload, scope) => backplane.publish(event.audience, event.type, payload, scope)),
        sendTo: /* hot path (every request or message): no span, docs/performance.md "Spans on the hot path" */ ((connections, event, payload, scope) =>
          backplane.sendTo(Array.from(connections, (c) => c.connectionId), event.type, payload, scope))
      })
    })
  )

  /** Wired: on {@link Backplane.layer}. */
  static readonly layer = EventBus.layerNoDeps.pipe(Layer.provide(Backplane.layer))
}
