/**
 * A subsystem's contract (src/subsystem/Subsystem.ts): the schema-only part
 * the clients load — its HTTP group declaration, its WebSocket request types
 * and its events. Imports schemas and types only.
 *
 * @module
 */
import type { HttpApiGroup } from "effect/http-api"
import type { AnyGatewayEvent } from "../../services/ws-sessions/GatewayEvent.ts"
import type { AnyWsMessage } from "../ws/api/message.ts"

/** The schema-only part of a subsystem: what clients and the API derivations need. */
export interface Contract<
  Name extends string = string,
  Http extends HttpApiGroup.Constraint = HttpApiGroup.Constraint,
  Ws extends AnyWsMessage = AnyWsMessage,
  Events extends AnyGatewayEvent = AnyGatewayEvent
> {
  /** The subsystem's name (its folder under `services/`, e.g. `approvals`). */
  readonly name: Name
  /** Its HTTP endpoints (one `HttpApiGroup`, or none). */
  readonly http: ReadonlyArray<Http>
  /** The WebSocket request types it handles. */
  readonly ws: ReadonlyArray<Ws>
  /** The WebSocket events it publishes. */
  readonly events: ReadonlyArray<Events>
}

/** Declares a contract; omitted parts are empty. */
export const contract = <
  const Name extends string,
  Http extends HttpApiGroup.Constraint = never,
  Ws extends AnyWsMessage = never,
  Events extends AnyGatewayEvent = never
>(options: {
  readonly name: Name
  readonly http?: ReadonlyArray<Http>
  readonly ws?: ReadonlyArray<Ws>
  readonly events?: ReadonlyArray<Events>
}): Contract<Name, Http, Ws, Events> => ({
  name: options.name,
  http: options.http ?? [],
  ws: options.ws ?? [],
  events: options.events ?? []
})

