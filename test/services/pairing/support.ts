/**
 * Stand-ins for the pairing service tests: fake WebSocket connections that
 * record what they are sent and how they were closed, principals, and the
 * service wired on a test database (built per test, on the test's `TestClock`).
 */
import { Clock, Layer } from "effect"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import type { Principal } from "../../../services/auth/principal.ts"
import { Pairings } from "../../../services/pairing/Pairings.ts"
import { PairingsRepo } from "../../../services/pairing/PairingsRepo.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../../../services/ws-sessions/EventBus.ts"
import { devicePrincipal, fakeConnection as connection } from "../../support/connections.ts"
import type { TestDatabase } from "../../support/databases.ts"

/** A device-token principal with `scopes`. */
export const device = devicePrincipal

/** A live connection of `deviceId` that records what it is sent and how it was closed. */
export const fakeConnection = (id: string, deviceId: string, principal: Principal, role: "client" | "node" = "client") =>
  connection({ id, deviceId, principal, role })



/** The pairing service with its repository, the audit chain and the WS sessions services, on a fresh `db`. */
export const pairingsLayer = (db: TestDatabase) =>
  Pairings.layerNoDeps.pipe(
    Layer.provideMerge(PairingsRepo.layer),
    Layer.provideMerge(AuditLog.layer),
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
