/**
 * Stand-ins for the pairing service tests: fake WebSocket connections that
 * record what they are sent and how they were closed, principals, and the
 * service wired on a test database (built per test, on the test's `TestClock`).
 */
import { Clock, Layer } from "effect"
import type { Principal } from "../../../services/auth/principal.ts"
import { Pairings } from "../../../services/pairing/Pairings.ts"
import { PairingsRepo } from "../../../services/pairing/PairingsRepo.ts"
import { type ConnectionHandle, ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../../../services/ws-sessions/EventBus.ts"
import type { TestDatabase } from "../../support/databases.ts"

/** A device-token principal with `scopes`. */
export const device = (deviceId: string, scopes: ReadonlyArray<string>, role: "client" | "node" = "client"): Principal => ({
  kind: "device",
  tokenId: `t-${deviceId}`,
  deviceId,
  role,
  scopes: new Set(scopes)
})

/** A live connection of `deviceId` whose outbound messages are parsed into `received` and whose closes are recorded. */
export const fakeConnection = (id: string, deviceId: string, principal: Principal, role: "client" | "node" = "client") => {
  const received: Array<any> = []
  const closes: Array<{ code: number; reason: string }> = []
  const handle: ConnectionHandle = {
    connectionId: id,
    role,
    deviceId,
    device: {},
    principal,
    capabilities: [],
    readyCapabilities: new Set(),
    connectedAt: new Date(0).toISOString(),
    remoteAddress: undefined,
    send: (text) => (received.push(JSON.parse(text)), true),
    close: (code, reason) => void closes.push({ code, reason })
  }
  return { handle, received, closes, events: (type: string) => received.filter((m) => m.type === type && "event_id" in m) }
}

/** The pairing service with its repository and the WS sessions services, on a fresh `db`. */
export const pairingsLayer = (db: TestDatabase) =>
  Pairings.layerNoDeps.pipe(
    Layer.provideMerge(PairingsRepo.layer),
    Layer.provideMerge(EventBus.layerNoDeps),
    Layer.provideMerge(ConnectionRegistry.layer),
    // The database client keeps the live clock: its pool's timers must not wait for the TestClock.
    Layer.provideMerge(db.make().pipe(Layer.provide(Layer.succeed(Clock.Clock, Clock.Clock.defaultValue()))))
  )

/** What a node tells on connect. */
export const connected = (nodeId: string, over: Partial<Parameters<Pairings["Service"]["nodeConnected"]>[0]> = {}) => ({
  node_id: nodeId,
  label: `node ${nodeId}`,
  capabilities: [{ id: "cli.exec", version: "1.0.0" }],
  metadata: { platform: "linux", version: "0.1.0", mode: "node", ip: "127.0.0.1" },
  ...over
})
