/**
 * Gateway events over WebSocket (gateway-api.md "Events"): the envelope
 * `{event_id, type, occurred_at, payload, scope?}` is built and serialized
 * once, then delivered to every live connection matching the audience.
 * Used by every subsystem that emits events.
 */
import { Clock, Context, Effect, Layer } from "effect"
import type { WsEventEnvelope, WsPeerRole } from "../../src/contracts/ws.ts"
import { hasScope } from "../auth/principal.ts"
import { ConnectionRegistry, type ConnectionHandle } from "./ConnectionRegistry.ts"

/**
 * Who receives an event: peers whose role is in `roles` (all roles when
 * absent) and who hold ANY of `requiredScopes` (none needed when absent or
 * empty; the admin token always passes).
 */
export interface Audience {
  readonly roles?: ReadonlyArray<WsPeerRole> | undefined
  readonly requiredScopes?: ReadonlyArray<string> | undefined
}

/** One event to publish. */
export interface GatewayEvent {
  readonly type: string
  readonly payload: unknown
  readonly scope?: unknown
  readonly audience?: Audience | undefined
}

/** True when `connection` belongs to `audience`. */
export const inAudience = (connection: ConnectionHandle, audience: Audience | undefined): boolean => {
  if (audience === undefined) return true
  if (audience.roles !== undefined && !audience.roles.includes(connection.role)) return false
  const scopes = audience.requiredScopes
  if (scopes === undefined || scopes.length === 0) return true
  return scopes.some((s) => hasScope(connection.principal, s))
}

/** The event bus (single instance: in-process delivery; a backplane layer can replace it for clusters). */
export class EventBus extends Context.Service<EventBus, {
  /** Publishes to matching live connections; returns the envelope and how many connections it was queued for. */
  readonly publish: (event: GatewayEvent) => Effect.Effect<{ readonly envelope: WsEventEnvelope; readonly delivered: number }>
}>()("svc-gateway/ws-sessions/EventBus") {
  /** In-process delivery through the {@link ConnectionRegistry}. */
  static readonly layer = Layer.effect(
    EventBus,
    Effect.gen(function*() {
      const registry = yield* ConnectionRegistry
      return EventBus.of({
        publish: (event) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const envelope: WsEventEnvelope = {
              event_id: crypto.randomUUID(),
              type: event.type,
              occurred_at: new Date(now).toISOString(),
              payload: event.payload,
              ...(event.scope !== undefined ? { scope: event.scope } : {})
            }
            const text = JSON.stringify(envelope)
            let delivered = 0
            for (const connection of registry.all()) {
              if (inAudience(connection, event.audience) && connection.send(text)) delivered++
            }
            return { envelope, delivered }
          })
      })
    })
  )
}
