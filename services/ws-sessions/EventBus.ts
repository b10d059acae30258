/**
 * Gateway events over WebSocket (gateway-api.md "Events"): the envelope
 * `{event_id, type, occurred_at, payload, scope?}` is built and serialized
 * once, then delivered to every live connection in the event's declared
 * audience. Used by every subsystem that emits events; each event type is
 * declared once (`GatewayEvent.make`) with its payload schema and audience.
 */
import { Clock, Context, Effect, Layer } from "effect"
import { hasScope } from "../auth/principal.ts"
import { GatewayMetrics } from "../metrics/GatewayMetrics.ts"
import { type ConnectionHandle, ConnectionRegistry } from "./ConnectionRegistry.ts"
import type { Audience, GatewayEvent } from "./GatewayEvent.ts"
import type { WsEventEnvelope } from "./schema.ts"

/** True when `connection` belongs to `audience`. */
export const inAudience = (connection: ConnectionHandle, audience: Audience): boolean => {
  if (audience.roles !== undefined && !audience.roles.includes(connection.role)) return false
  if (audience.withoutScopes !== undefined && audience.withoutScopes.some((s) => hasScope(connection.principal, s))) return false
  const scopes = audience.requiredScopes
  if (scopes === undefined || scopes.length === 0) return true
  return scopes.some((s) => hasScope(connection.principal, s))
}

/**
 * The envelope of one event, serialized: `{event_id (uuid), type,
 * occurred_at (ISO 8601 of `now`, ms since the epoch), payload, scope?}`.
 */
export const eventEnvelope = (type: string, payload: unknown, now: number, scope?: unknown): { readonly envelope: WsEventEnvelope; readonly text: string } => {
  const envelope: WsEventEnvelope = {
    event_id: crypto.randomUUID(),
    type,
    occurred_at: new Date(now).toISOString(),
    payload,
    ...(scope !== undefined ? { scope } : {})
  }
  return { envelope, text: JSON.stringify(envelope) }
}

/** What a publish delivered. */
export interface Published {
  readonly envelope: WsEventEnvelope
  /** How many connections it was queued for. */
  readonly delivered: number
}

/** The event bus (single instance: in-process delivery; a backplane layer can replace it for clusters). */
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
    connections: Iterable<ConnectionHandle>,
    event: GatewayEvent<Type, Payload>,
    payload: Payload["Type"],
    scope?: unknown
  ) => Effect.Effect<Published>
}>()("svc-gateway/ws-sessions/EventBus") {
  /** In-process delivery through the {@link ConnectionRegistry}; needs it. */
  static readonly layerNoDeps = Layer.effect(
    EventBus,
    Effect.gen(function*() {
      const registry = yield* ConnectionRegistry
      const metrics = yield* GatewayMetrics
      const deliver = <T>(
        connections: Iterable<ConnectionHandle>,
        type: string,
        payload: T,
        scope: unknown,
        include: (connection: ConnectionHandle) => boolean
      ) =>
        Effect.map(Clock.currentTimeMillis, (now): Published => {
          const { envelope, text } = eventEnvelope(type, payload, now, scope)
          let delivered = 0
          for (const connection of connections) {
            if (include(connection) && connection.send(text)) delivered++
          }
          if (delivered > 0) metrics.wsMessage(type, "out", delivered)
          return { envelope, delivered }
        })
      return EventBus.of({
        publish: (event, payload, scope) =>
          deliver(registry.all(), event.type, payload, scope, (connection) => inAudience(connection, event.audience)),
        sendTo: (connections, event, payload, scope) => deliver(connections, event.type, payload, scope, () => true)
      })
    })
  )

  /** Wired: on this instance's {@link ConnectionRegistry}. */
  static readonly layer = EventBus.layerNoDeps.pipe(Layer.provide(ConnectionRegistry.layer))
}
