/**
 * Every live WebSocket connection of this gateway instance that completed the
 * handshake (role, device, capabilities, principal). Used by broadcasts,
 * gateway-initiated requests, `GET /connections` and presence.
 */
import { Context, Effect, Layer } from "effect"
import type { CapabilityDescriptor, WsPeerRole } from "./schema.ts"
import type { Principal } from "../auth/principal.ts"

/** Optional device details sent in `connect.init`. */
export interface DeviceInfo {
  readonly label?: string | undefined
  readonly platform?: string | undefined
  readonly version?: string | undefined
  readonly mode?: string | undefined
}

/**
 * A live, handshaken connection. `send` enqueues one serialized message on the
 * connection's bounded outbound mailbox; it returns false when the connection
 * is closed or was just closed as a slow consumer (1013).
 */
export interface ConnectionHandle {
  readonly connectionId: string
  readonly role: WsPeerRole
  readonly deviceId: string
  readonly device: DeviceInfo
  readonly principal: Principal
  /** Capabilities advertised in `connect.init`. */
  readonly capabilities: ReadonlyArray<CapabilityDescriptor>
  /** `capability.ready` set: advertised ∩ declared ready (ids). */
  readonly readyCapabilities: Set<string>
  readonly connectedAt: string
  readonly remoteAddress: string | undefined
  readonly send: (message: string) => boolean
  readonly close: (code: number, reason: string) => void
}

/** Registry of live connections (this instance only). */
export class ConnectionRegistry extends Context.Service<ConnectionRegistry, {
  readonly add: (connection: ConnectionHandle) => Effect.Effect<void>
  readonly remove: (connectionId: string) => Effect.Effect<void>
  /** The connection, or `undefined` when it is not (or no longer) connected here. */
  readonly get: (connectionId: string) => ConnectionHandle | undefined
  /** A snapshot of every live connection. */
  readonly all: () => ReadonlyArray<ConnectionHandle>
  readonly size: () => number
}>()("svc-gateway/ws-sessions/ConnectionRegistry") {
  /** In-memory registry. */
  static readonly layer = Layer.sync(ConnectionRegistry, () => {
    const connections = new Map<string, ConnectionHandle>()
    return ConnectionRegistry.of({
      add: (c) => Effect.sync(() => void connections.set(c.connectionId, c)),
      remove: (id) => Effect.sync(() => void connections.delete(id)),
      get: (id) => connections.get(id),
      all: () => [...connections.values()],
      size: () => connections.size
    })
  })
}
