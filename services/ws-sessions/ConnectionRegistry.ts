/**
 * The connection directory as the WebSocket sessions subsystem names it: a
 * thin view over the {@link Backplane}'s directory (every handshaken
 * connection: role, device, capabilities, principal). Used by broadcasts,
 * gateway-initiated requests, `GET /connections`, `GET /nodes` and presence.
 * With a distributed backplane it lists the connections of every instance.
 */
import { Context, Effect, Layer } from "effect"
import { Backplane } from "../backplane/Backplane.ts"
import type { ConnectionEntry, ConnectionHandle } from "../backplane/schema.ts"

export type { ConnectionEntry, ConnectionHandle, DeviceInfo } from "../backplane/schema.ts"

/** Directory of connections (see {@link Backplane} for the contract). */
export class ConnectionRegistry extends Context.Service<ConnectionRegistry, {
  /** Registers a handshaken connection of this instance. */
  readonly add: (connection: ConnectionHandle) => Effect.Effect<void>
  /** Removes a connection (its pending gateway-initiated requests fail with `PeerDisconnected`). */
  readonly remove: (connectionId: string) => Effect.Effect<void>
  /** The connection, or `undefined` when it is not (or no longer) connected. */
  readonly get: (connectionId: string) => ConnectionEntry | undefined
  /** A snapshot of every live connection. */
  readonly all: () => ReadonlyArray<ConnectionEntry>
  readonly size: () => number
}>()("svc-gateway/ws-sessions/ConnectionRegistry") {
  /** A view over the {@link Backplane}; needs it. */
  static readonly layerNoDeps = Layer.effect(
    ConnectionRegistry,
    Effect.gen(function*() {
      const backplane = yield* Backplane
      // A view of the Backplane: its methods, traced there (`Backplane.register`, …).
      return ConnectionRegistry.of({
        add: backplane.register,
        remove: backplane.unregister,
        get: backplane.lookup,
        all: backplane.connections,
        size: backplane.size
      })
    })
  )

  /**
   * Wired: the directory and the {@link Backplane.layer} it views, both
   * provided (views built with `layerNoDeps` over this layer, e.g.
   * `EventBus.layerNoDeps`, share that one backplane).
   */
  static readonly layer = ConnectionRegistry.layerNoDeps.pipe(Layer.provideMerge(Backplane.layer))
}
