/** Presence TTL, pruning events and audience filtering, on the test clock. */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { adminPrincipal, type Principal } from "../../../services/auth/principal.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus, inAudience } from "../../../services/ws-sessions/EventBus.ts"
import { Presence, PresenceConfig } from "../../../services/ws-sessions/Presence.ts"
import { fakeConnection as connection } from "../../support/connections.ts"


const fakeConnection = (id: string, principal: Principal, role: "client" | "node" = "client") => connection({ id, principal, role })

const device = (scopes: ReadonlyArray<string>): Principal => ({ kind: "device", tokenId: "t", deviceId: "d", role: "client", scopes: new Set(scopes) })

const layer = Presence.layerNoDeps.pipe(
  Layer.provide(Layer.succeed(PresenceConfig, {
    instanceId: "gw-test",
    version: "0.0.0",
    ttl: Duration.seconds(60),
    pruneInterval: Duration.seconds(5),
    maxEntries: 3
  })),
  Layer.provideMerge(EventBus.layerNoDeps),
  Layer.provideMerge(ConnectionRegistry.layer)
)

describe("Presence", () => {
  it.effect("keeps entries for the TTL, then prunes them with presence.pruned", () =>
    Effect.gen(function*() {
      const registry = yield* ConnectionRegistry
      const presence = yield* Presence
      const operator = fakeConnection("op", adminPrincipal)
      yield* registry.add(operator.handle)
      yield* presence.upsert({ deviceId: "dev_a", role: "node", reason: "connect" })
      expect(operator.received.map((e) => e.type)).toEqual(["presence.upserted"])
      expect((yield* presence.snapshot).entries.map((e) => e.instance_id)).toEqual(["gw-test", "dev_a"])
      yield* TestClock.adjust(Duration.seconds(59))
      expect((yield* presence.snapshot).entries).toHaveLength(2)
      yield* TestClock.adjust(Duration.seconds(6))
      expect((yield* presence.snapshot).entries.map((e) => e.instance_id)).toEqual(["gw-test"])
      expect(operator.received.at(-1)).toMatchObject({ type: "presence.pruned", payload: { instance_id: "dev_a" } })
    }).pipe(Effect.provide(layer)))

  it.effect("a beacon refreshes the entry and merges its fields", () =>
    Effect.gen(function*() {
      const presence = yield* Presence
      yield* presence.upsert({ deviceId: "dev_b", role: "client", reason: "connect", connectedAt: "2026-01-01T00:00:00.000Z" })
      yield* TestClock.adjust(Duration.seconds(50))
      const entry = yield* presence.upsert({ deviceId: "dev_b", role: "client", reason: "periodic", beacon: { host: "h", mode: "cli" } })
      expect(entry).toMatchObject({ host: "h", mode: "cli", reason: "periodic", connected_at: "2026-01-01T00:00:00.000Z" })
      yield* TestClock.adjust(Duration.seconds(50))
      expect((yield* presence.snapshot).entries.map((e) => e.instance_id)).toContain("dev_b")
    }).pipe(Effect.provide(layer)))

  it.effect("caps the number of entries, dropping the least recently seen", () =>
    Effect.gen(function*() {
      const presence = yield* Presence
      for (const id of ["1", "2", "3", "4"]) yield* presence.upsert({ deviceId: id, role: "node", reason: "connect" })
      expect((yield* presence.snapshot).entries.map((e) => e.instance_id)).toEqual(["gw-test", "2", "3", "4"])
    }).pipe(Effect.provide(layer)))
})

describe("event audience", () => {
  it("filters by role and by any-of scopes; admin passes every scope", () => {
    const audience = { roles: ["client"] as const, requiredScopes: ["operator.read", "operator.write"] }
    expect(inAudience(fakeConnection("a", adminPrincipal).handle, audience)).toBe(true)
    expect(inAudience(fakeConnection("b", device(["operator.write"])).handle, audience)).toBe(true)
    expect(inAudience(fakeConnection("c", device([])).handle, audience)).toBe(false)
    expect(inAudience(fakeConnection("d", adminPrincipal, "node").handle, audience)).toBe(false)
    expect(inAudience(fakeConnection("e", device([])).handle, {})).toBe(true)
  })
})
