/**
 * One declaration per WebSocket event type (gateway-api.md "Events"): its
 * `type`, the schema of its `payload`, and its audience (who receives it).
 * Subsystems declare their events next to their service and publish them with
 * `EventBus.publish(event, payload)`; the client SDK's typed event map is
 * derived from the declarations.
 */
import type { Schema } from "effect"
import type { Audience } from "../backplane/schema.ts"

export type { Audience } from "../backplane/schema.ts"

/** An event type. */
export interface GatewayEvent<Type extends string = string, Payload extends Schema.Top = Schema.Top> {
  readonly type: Type
  readonly payload: Payload
  readonly audience: Audience
}

/** Any event declaration. */
export type AnyGatewayEvent = GatewayEvent<string, Schema.Top>

/** Declares an event type. */
export const make = <const Type extends string, Payload extends Schema.Top>(
  type: Type,
  options: { readonly payload: Payload; readonly audience: Audience }
): GatewayEvent<Type, Payload> => ({ type, payload: options.payload, audience: options.audience })

/** Operator clients holding `operator.read` (the admin token always). */
export const OPERATORS_READ: Audience = { roles: ["client"], requiredScopes: ["operator.read"] }

/** The typed payload map of a list of event declarations, by type (what a client receives). */
export type EventMap<Events extends AnyGatewayEvent> = {
  readonly [E in Events as E["type"]]: E["payload"]["Encoded"]
}
