/**
 * Node capabilities (gateway-api.md "capability.ready"; reference §5.3): a
 * node advertises capabilities in `connect.init` and declares which are
 * ready with `capability.ready`; its ready set is the intersection of the
 * two (by id), kept in the connection directory (`ConnectionEntry.readyCapabilities`,
 * set through `Backplane.setReady`).
 * Each declaration is announced to operators.
 */
import { Context, Effect, Layer } from "effect"
import { Backplane } from "../backplane/Backplane.ts"
import type { ConnectionEntry } from "../backplane/schema.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import type { CapabilityDescriptor } from "../ws-sessions/schema.ts"
import { CapabilityReadyEvent } from "./events.ts"

/** The advertised descriptors whose id is among `declared` (advertised order, advertised versions). */
export const readyCapabilities = (
  advertised: ReadonlyArray<CapabilityDescriptor>,
  declared: ReadonlyArray<CapabilityDescriptor>
): ReadonlyArray<CapabilityDescriptor> => {
  const ids = new Set(declared.map((c) => c.id))
  return advertised.filter((c) => ids.has(c.id))
}

/** The ready descriptors of a live connection (advertised descriptors whose id is in its ready set). */
export const readyDescriptors = (connection: ConnectionEntry): ReadonlyArray<CapabilityDescriptor> =>
  connection.capabilities.filter((c) => connection.readyCapabilities.has(c.id))

/** Capability bookkeeping of live node connections. */
export class Capabilities extends Context.Service<Capabilities, {
  /**
   * Replaces the ready set of `connection` with advertised ∩ `declared`,
   * publishes `capability.ready {node_id, connection_id, capabilities}` and
   * returns the ready descriptors.
   */
  readonly declareReady: (
    connection: ConnectionEntry,
    declared: ReadonlyArray<CapabilityDescriptor>
  ) => Effect.Effect<ReadonlyArray<CapabilityDescriptor>>
}>()("svc-gateway/nodes/Capabilities") {
  /** Needs the {@link Backplane} (the ready set) and the {@link EventBus}. */
  static readonly layerNoDeps = Layer.effect(
    Capabilities,
    Effect.gen(function*() {
      const backplane = yield* Backplane
      const events = yield* EventBus
      return Capabilities.of({
        declareReady: Effect.fn("Capabilities.declareReady")(function*(connection, declared) {
          const ready = readyCapabilities(connection.capabilities, declared)
          yield* backplane.setReady(connection.connectionId, ready.map((c) => c.id))
          yield* events.publish(
            CapabilityReadyEvent,
            { node_id: connection.deviceId, connection_id: connection.connectionId, capabilities: ready },
            { kind: "node", node_id: connection.deviceId }
          )
          return ready
        })
      })
    })
  )

  /** Wired: on {@link Backplane.layer}, announces on {@link EventBus.layer}. */
  static readonly layer = Capabilities.layerNoDeps.pipe(Layer.provide(Layer.mergeAll(Backplane.layer, EventBus.layer)))
}
