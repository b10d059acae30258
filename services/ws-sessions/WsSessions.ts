/**
 * The WebSocket sessions subsystem as one layer: the registry of live
 * connections, the event bus, presence and gateway-initiated requests
 * (node capabilities: services/nodes/), each built once (shared by every subsystem
 * that names them: layers are memoized).
 */
import { Layer } from "effect"
import { ConnectionRegistry } from "./ConnectionRegistry.ts"
import { EventBus } from "./EventBus.ts"
import { GatewayRequests } from "./GatewayRequests.ts"
import { Presence } from "./Presence.ts"

/** Every service of the subsystem, wired; needs nothing. */
export const WsSessionsLive = Layer.mergeAll(
  ConnectionRegistry.layer,
  EventBus.layer,
  Presence.layer,
  GatewayRequests.layer
)
