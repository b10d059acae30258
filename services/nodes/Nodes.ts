/**
 * The nodes subsystem (docs/nodes.md): node listing (`GET /nodes`, an
 * addition to the spec) and {@link NodesLive}, every service of the
 * subsystem wired (capabilities, dispatch, listing).
 */
import { Context, Effect, Layer } from "effect"
import { Pairings } from "../pairing/Pairings.ts"
import { Backplane } from "../backplane/Backplane.ts"
import type { InstanceQuery } from "../backplane/schema.ts"
import { BackplanePeers } from "../backplane/peers.ts"
import type { ConnectionEntry } from "../backplane/schema.ts"
import type { CapabilityDescriptor } from "../ws-sessions/schema.ts"
import { Capabilities, readyDescriptors } from "./Capabilities.ts"
import { NodeDispatch } from "./NodeDispatch.ts"
import type { NodeListResponse, NodeSummary } from "./schema.ts"

/** The distinct ready descriptors of a node's live connections (first connection first). */
const readyUnion = (connections: ReadonlyArray<ConnectionEntry>): ReadonlyArray<CapabilityDescriptor> => {
  const seen = new Set<string>()
  const out: Array<CapabilityDescriptor> = []
  for (const connection of connections) {
    for (const c of readyDescriptors(connection)) {
      const key = `${c.id}@${c.version ?? ""}`
      if (seen.has(key)) continue
      seen.add(key)
      out.push(c)
    }
  }
  return out
}

/** Nodes as operators see them. */
export class Nodes extends Context.Service<Nodes, {
  /**
   * Every node with a pairing record (any status), in the pairing list's
   * order, with its live state: its connections on every instance (on
   * `query.instance` only when given) and the instances holding them, ready
   * capabilities, and the tasks in flight from this instance.
   */
  readonly list: (query?: InstanceQuery) => Effect.Effect<NodeListResponse>
}>()("svc-gateway/nodes/Nodes") {
  /** Needs {@link Pairings}, the {@link Backplane} (its directory), `BackplanePeers` and {@link NodeDispatch}. */
  static readonly layerNoDeps = Layer.effect(
    Nodes,
    Effect.gen(function*() {
      const pairings = yield* Pairings
      const backplane = yield* Backplane
      const dispatch = yield* NodeDispatch
      const peers = yield* BackplanePeers
      const list = Effect.fn("Nodes.list")(function*(query?: InstanceQuery) {
        const all = yield* pairings.list()
        const byNode = new Map<string, Array<ConnectionEntry>>()
        for (const connection of backplane.connections()) {
          if (connection.role !== "node") continue
          if (query?.instance !== undefined && peers.holderOf(connection.connectionId) !== query.instance) continue
          const list = byNode.get(connection.deviceId)
          if (list === undefined) byNode.set(connection.deviceId, [connection])
          else list.push(connection)
        }
        const nodes = all.map((pairing): NodeSummary => {
          const connections = byNode.get(pairing.node.node_id) ?? []
          return {
            node_id: pairing.node.node_id,
            ...(pairing.node.label !== undefined ? { label: pairing.node.label } : {}),
            pairing_id: pairing.pairing_id,
            pairing_status: pairing.status,
            trust_level: pairing.trust_level,
            connected: connections.length > 0,
            connections: connections.length,
            instance_ids: holders(connections),
            in_flight: connections.reduce((n, c) => n + dispatch.inFlight(c.connectionId), 0),
            ready_capabilities: readyUnion(connections),
            capability_allowlist: pairing.capability_allowlist,
            last_seen_at: pairing.node.last_seen_at
          }
        })
        return { status: "ok", nodes } as const
      })
      /** The distinct instances holding these connections, in connection order. */
      const holders = (connections: ReadonlyArray<ConnectionEntry>): Array<string> => {
        const ids = new Set<string>()
        for (const c of connections) {
          const holder = peers.holderOf(c.connectionId)
          if (holder !== undefined) ids.add(holder)
        }
        return [...ids]
      }
      return Nodes.of({ list })
    })
  )

  /** Wired: on the pairing store, the backplane and {@link NodeDispatch.layer}. */
  static readonly layer = Nodes.layerNoDeps.pipe(
    Layer.provide(Layer.mergeAll(Pairings.layer, Backplane.layer, NodeDispatch.layer))
  )
}

/** Every service of the nodes subsystem, wired: {@link Capabilities}, {@link NodeDispatch}, {@link Nodes}. */
export const NodesLive = Layer.mergeAll(Capabilities.layer, NodeDispatch.layer, Nodes.layer)
