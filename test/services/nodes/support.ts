/**
 * Stand-ins for the nodes service tests: an in-memory `Pairings` (only
 * `findByNode` and `list`), fake node and operator connections that record
 * what they are sent, and the nodes services wired on the real WS sessions
 * services (registry, event bus, gateway requests); `Artifacts` that store nothing.
 */
import { Effect, Layer } from "effect"
import { Artifacts } from "../../../services/artifacts/Artifacts.ts"
import { Capabilities } from "../../../services/nodes/Capabilities.ts"
import { NodeDispatch } from "../../../services/nodes/NodeDispatch.ts"
import { Nodes } from "../../../services/nodes/Nodes.ts"
import { Pairings } from "../../../services/pairing/Pairings.ts"
import type { Pairing, PairingStatus } from "../../../services/pairing/schema.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { fakeConnection as connection, type FakeConnectionOptions } from "../../support/connections.ts"
import { EventBus } from "../../../services/ws-sessions/EventBus.ts"
import { GatewayRequests } from "../../../services/ws-sessions/GatewayRequests.ts"
import type { CapabilityDescriptor } from "../../../services/ws-sessions/schema.ts"

const EPOCH = new Date(0).toISOString()

/** A pairing record of `nodeId`. */
export const pairing = (
  id: number,
  nodeId: string,
  status: PairingStatus,
  allowlist: ReadonlyArray<CapabilityDescriptor> = []
): Pairing => ({
  pairing_id: id,
  status,
  trust_level: status === "approved" ? "local" : null,
  requested_at: EPOCH,
  node: { node_id: nodeId, label: `label-${nodeId}`, capabilities: [], last_seen_at: EPOCH },
  capability_allowlist: allowlist,
  resolution: null,
  resolved_at: null
})

/** The pairing records the fake `Pairings` serves (mutable: tests may change a status mid-test). */
export type PairingStore = Map<string, Pairing>

/** `Pairings` over `store`: `findByNode` and `list` (newest pairing id first). Other methods are not used here. */
export const fakePairings = (store: PairingStore) =>
  Layer.succeed(Pairings, {
    findByNode: (nodeId: string) => Effect.sync(() => store.get(nodeId)),
    list: () => Effect.sync(() => [...store.values()].sort((a, b) => b.pairing_id - a.pairing_id))
  } as unknown as Pairings["Service"])


/** `Artifacts` that store nothing (these tests send no attachments; test/ws/nodes.test.ts does, on a real gateway). */
export const noArtifacts = Layer.succeed(Artifacts, {
  attach: () => Effect.die(new Error("no attachments in these tests"))
} as unknown as Artifacts["Service"])

/** A live connection; nodes tests default to role `node`. */
export const fakeConnection = (options: FakeConnectionOptions) => connection({ role: "node", ...options })

/** The nodes services with the real WS sessions services and a fake `Pairings` over `store`. */
export const nodesLayer = (store: PairingStore) =>
  Layer.mergeAll(Capabilities.layerNoDeps, Nodes.layerNoDeps).pipe(
    Layer.provideMerge(NodeDispatch.layerNoDeps),
    Layer.provideMerge(fakePairings(store)),
    Layer.provideMerge(noArtifacts),
    Layer.provideMerge(GatewayRequests.layerNoDeps),
    Layer.provideMerge(EventBus.layerNoDeps),
    Layer.provideMerge(ConnectionRegistry.layer)
  )

/** Lets forked fibers run (the TestClock does not move) until `check` holds, or fails after 1,000 yields. */
export const until = (check: () => boolean, what = "a condition") =>
  Effect.gen(function*() {
    for (let i = 0; i < 1000 && !check(); i++) yield* Effect.yieldNow
    if (!check()) return yield* Effect.die(new Error(`never saw ${what}`))
  })
