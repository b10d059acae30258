/**
 * Presence TTL, pruning events, coalesced announcements and audience filtering, on the test clock; and the entries of
 * a cluster (other instances and the devices they hold, from the backplane's directory).
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { adminPrincipal, type Principal } from "../../../services/auth/principal.ts"
import { Backplane } from "../../../services/backplane/Backplane.ts"
import { BackplanePeers } from "../../../services/backplane/peers.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus, inAudience } from "../../../services/ws-sessions/EventBus.ts"
import { Presence, PresenceConfig } from "../../../services/ws-sessions/Presence.ts"
import { fakeConnection as connection } from "../../support/connections.ts"


const fakeConnection = (id: string, principal: Principal, role: "client" | "node" = "client") => connection({ id, principal, role })

const device = (scopes: ReadonlyArray<string>): Principal => ({ kind: "device", tokenId: "t", deviceId: "d", role: "client", scopes: new Set(scopes) })

/** Presence on a local backplane: TTL 60 s (pruned every 5 s), announcements coalesced over 250 ms. */
const presenceLayer = (maxEntries: number, announceRate = 1000) =>
  Presence.layerNoDeps.pipe(
    Layer.provide(Layer.succeed(PresenceConfig, {
      instanceId: "gw-test",
      version: "0.0.0",
      ttl: Duration.seconds(60),
      pruneInterval: Duration.seconds(5),
      maxEntries,
      announceWindow: Duration.millis(250),
      announceRate
    })),
    Layer.provideMerge(EventBus.layerNoDeps),
    Layer.provideMerge(ConnectionRegistry.layer)
  )

const layer = presenceLayer(3)
const bigLayer = (announceRate = 1000) => presenceLayer(500, announceRate)

/** The presence service and one admin operator client connected to receive its events. */
const withOperator = Effect.gen(function*() {
  const registry = yield* ConnectionRegistry
  const presence = yield* Presence
  const operator = fakeConnection("op", adminPrincipal)
  yield* registry.add(operator.handle)
  return { presence, operator }
})

describe("Presence", () => {
  it.effect("keeps entries for the TTL, then prunes them with presence.pruned", () =>
    Effect.gen(function*() {
      const { presence, operator } = yield* withOperator
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

/** `count` operator clients connect `gapMs` apart, each announced as it connects; then the last window ends. */
const storm = (count: number, gapMs: number) =>
  Effect.gen(function*() {
    const registry = yield* ConnectionRegistry
    const presence = yield* Presence
    const operators: Array<ReturnType<typeof fakeConnection>> = []
    for (let i = 0; i < count; i++) {
      const operator = fakeConnection(`op${i}`, adminPrincipal)
      operators.push(operator)
      yield* registry.add(operator.handle)
      yield* presence.upsert({ deviceId: `dev_op${i}`, role: "client", reason: "connect" })
      yield* TestClock.adjust(Duration.millis(gapMs))
    }
    yield* TestClock.adjust(Duration.seconds(10))
    return {
      operators,
      messages: operators.reduce((n, o) => n + o.events("presence.upserted").length, 0),
      /** Devices announced to `operator`, in order (each entry of every event). */
      seenBy: (operator: ReturnType<typeof fakeConnection>) =>
        operator.events("presence.upserted").flatMap((e) =>
          (e.payload.entries ?? [e.payload.entry]).map((x: { instance_id: string }) => x.instance_id)
        )
    }
  })

const upserted = (operator: ReturnType<typeof fakeConnection>) =>
  operator.events("presence.upserted").map((e) => ({
    entry: e.payload.entry.instance_id,
    entries: e.payload.entries?.map((x: { instance_id: string }) => x.instance_id)
  }))

describe("Presence announcements (coalesced per window)", () => {
  it.effect("announces a lone upsert at once; upserts within the window together at its end, each device once", () =>
    Effect.gen(function*() {
      const { presence, operator } = yield* withOperator

      yield* presence.upsert({ deviceId: "a", role: "client", reason: "connect" })
      expect(upserted(operator)).toEqual([{ entry: "a", entries: undefined }])

      yield* TestClock.adjust(Duration.millis(100))
      yield* presence.upsert({ deviceId: "b", role: "client", reason: "connect" })
      yield* presence.upsert({ deviceId: "c", role: "node", reason: "connect" })
      yield* presence.upsert({ deviceId: "b", role: "client", reason: "periodic", beacon: { host: "h" } })
      expect(upserted(operator)).toHaveLength(1) // nothing more before the window ends
      yield* TestClock.adjust(Duration.millis(150))
      expect(upserted(operator)).toEqual([{ entry: "a", entries: undefined }, { entry: "b", entries: ["c", "b"] }])
      const batch = operator.events("presence.upserted")[1].payload
      expect(batch.entry).toEqual(batch.entries[1])
      expect(batch.entry).toMatchObject({ instance_id: "b", reason: "periodic", host: "h" })

      // A quiet window closes it: the next upsert is announced at once again, alone.
      yield* TestClock.adjust(Duration.millis(250))
      yield* TestClock.adjust(Duration.millis(10))
      yield* presence.upsert({ deviceId: "d", role: "client", reason: "connect" })
      expect(upserted(operator).at(-1)).toEqual({ entry: "d", entries: undefined })
      expect(upserted(operator)).toHaveLength(3)
      yield* TestClock.adjust(Duration.millis(250))
      expect(upserted(operator)).toHaveLength(3)
    }).pipe(Effect.provide(bigLayer())))

  it.effect("a storm of N connections costs each operator one event per window, not N", () =>
    Effect.gen(function*() {
      // 200 operator clients connect 10 ms apart (2 s). Uncoalesced: 1 + 2 + … + 200 = 20,100 events.
      const { operators, messages, seenBy } = yield* storm(200, 10)
      // Coalesced: at most one per 250 ms window per operator (2 s: 9 windows).
      expect(messages).toBeLessThanOrEqual(200 * 9)
      // Every operator learns of every device that connected after it, each exactly once, in order.
      expect(seenBy(operators[0])).toEqual(operators.map((_, i) => `dev_op${i}`))
      expect(seenBy(operators[150])).toEqual(operators.slice(150).map((_, i) => `dev_op${150 + i}`))
    }).pipe(Effect.provide(bigLayer())))

  it.effect("the window grows with the audience, so the messages of a storm stay under announceRate per second", () =>
    Effect.gen(function*() {
      // 400 operators connect 5 ms apart (2 s) with a budget of 100 presence messages a second: once the audience
      // is large, a window lasts (recipients / 100) s; the total stays near 100/s × the storm (plus the last
      // announcement to every operator), not 400²/2 = 80,200.
      const { operators, messages, seenBy } = yield* storm(400, 5)
      expect(messages).toBeLessThanOrEqual(100 * 2 + 2 * 400)
      expect(seenBy(operators[0])).toEqual(operators.map((_, i) => `dev_op${i}`))
    }).pipe(Effect.provide(bigLayer(100))))

  it.effect("one prune tick announces all its expired entries in one presence.pruned", () =>
    Effect.gen(function*() {
      const { presence, operator } = yield* withOperator
      for (const id of ["x", "y", "z"]) yield* presence.upsert({ deviceId: id, role: "node", reason: "connect" })
      yield* TestClock.adjust(Duration.seconds(65))
      const pruned = operator.events("presence.pruned")
      expect(pruned).toHaveLength(1)
      expect(pruned[0].payload).toEqual({ instance_id: "z", instance_ids: ["x", "y", "z"] })
    }).pipe(Effect.provide(bigLayer())))
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

describe("Presence of a cluster", () => {
  /** Two connections held by another instance, `gw-b` (as the PostgreSQL backplane's directory would list them). */
  const heldByB = new Set(["b1", "b2"])
  const peersLayer = Layer.succeed(BackplanePeers, {
    instanceId: "gw-test",
    peers: Effect.succeed([
      { instance_id: "gw-test", role: "all", version: "0.0.0", started_at: "1970-01-01T00:00:00.000Z", last_heartbeat_at: "1970-01-01T00:00:00.000Z" },
      { instance_id: "gw-b", role: "edge", version: "0.0.1", started_at: "1970-01-01T00:00:00.000Z", last_heartbeat_at: "1970-01-01T00:00:05.000Z" }
    ]),
    holderOf: (connectionId) => (heldByB.has(connectionId) ? "gw-b" : "gw-test")
  })
  const clusterLayer = Presence.layerNoDeps.pipe(
    Layer.provide(Layer.succeed(PresenceConfig, {
      instanceId: "gw-test",
      version: "0.0.0",
      ttl: Duration.seconds(60),
      pruneInterval: Duration.seconds(5),
      maxEntries: 10,
      announceWindow: Duration.millis(250),
      announceRate: 1000
    })),
    Layer.provideMerge(EventBus.layerNoDeps),
    Layer.provideMerge(ConnectionRegistry.layerNoDeps),
    Layer.provideMerge(Layer.merge(Backplane.layerLocal, peersLayer))
  )

  it.effect("lists the other instances, then this one's entries, then devices held elsewhere (once each, this instance's entry first)", () =>
    Effect.gen(function*() {
      const registry = yield* ConnectionRegistry
      const presence = yield* Presence
      yield* presence.upsert({ deviceId: "dev_a", role: "client", reason: "connect" })
      // dev_b on B; dev_a also on B, but it has this instance's entry already.
      yield* registry.add(connection({ id: "b1", role: "node", deviceId: "dev_b" }).handle)
      yield* registry.add(connection({ id: "b2", deviceId: "dev_a" }).handle)
      const entries = (yield* presence.snapshot).entries
      expect(entries.map((e) => [e.instance_id, e.role, e.reason, e.gateway_instance_id])).toEqual([
        ["gw-test", "gateway", "self", "gw-test"],
        ["gw-b", "gateway", "periodic", "gw-b"],
        ["dev_a", "client", "connect", "gw-test"],
        ["dev_b", "node", "connect", "gw-b"]
      ])
      expect(entries[1]).toMatchObject({ version: "0.0.1", last_seen_at: "1970-01-01T00:00:05.000Z" })
      expect(entries[3]).toMatchObject({ connected_at: "1970-01-01T00:00:00.000Z", last_seen_at: "1970-01-01T00:00:05.000Z" })
      // Gone from the directory: gone from presence.
      yield* registry.remove("b1")
      expect((yield* presence.snapshot).entries.map((e) => e.instance_id)).toEqual(["gw-test", "gw-b", "dev_a"])
    }).pipe(Effect.provide(clusterLayer)))
})
