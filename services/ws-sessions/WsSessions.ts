/**
 * The WebSocket sessions subsystem as one layer: the backplane (every
 * cross-connection delivery) and its views (the registry of live
 * connections, the event bus, gateway-initiated requests), presence
 * (node capabilities: services/nodes/), each built once (shared by every subsystem
 * that names them: layers are memoized).
 */
import { Layer } from "effect"
import { Backplane } from "../backplane/Backplane.ts"
import { ConnectionRegistry } from "./ConnectionRegistry.ts"
import { EventBus } from "./EventBus.ts"
import { GatewayRequests } from "./GatewayRequests.ts"
import { Presence } from "./Presence.ts"

/** Every service of the subsystem, wired; needs nothing. */
export const WsSessionsLive = Layer.mergeAll(
  Backplane.layer,
  ConnectionRegistry.layer,
  EventBus.layer,
  Presence.layer,
  GatewayRequests.layer
)
