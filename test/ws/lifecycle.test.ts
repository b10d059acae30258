/**
 * Connection lifecycle: heartbeat, slow consumers, gateway-initiated
 * requests, rate limiting of failed upgrades, and 1,000 concurrent handshakes.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Schema } from "effect"
import { TestClock } from "effect/testing"
import WebSocket from "ws"
import { ConnectionRegistry } from "../../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../../services/ws-sessions/EventBus.ts"
import * as GatewayEvent from "../../services/ws-sessions/GatewayEvent.ts"
import { GatewayRequests } from "../../services/ws-sessions/GatewayRequests.ts"
import { eventually } from "../support/eventually.ts"
import { startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, handshake, makeIdentity, openPeer } from "../support/wsPeer.ts"

describe("heartbeat (test clock: pings every 5 s, a peer silent for 10 s is terminated)", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({}, undefined, { clock: "test" })
  })
  afterAll(() => gw.close())

  const adjust = (ms: number) => gw.run(TestClock.adjust(Duration.millis(ms)))

  it("pings every interval and keeps a peer that answers", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    for (let round = 1; round <= 4; round++) {
      const ping = new Promise((resolve) => peer.ws.once("ping", resolve))
      await adjust(5_000)
      await ping
      // The pong went out before this request; its answer means the gateway has seen both.
      expect((await peer.request("ping")).ok).toBe(true)
    }
    expect(peer.ws.readyState).toBe(WebSocket.OPEN)
    peer.ws.close()
  })

  it("terminates a peer that stops answering pings once it has been silent for the pong timeout", async () => {
    const peer = await openPeer(gw.url, gw.adminToken, "bearer", { autoPong: false })
    await handshake(peer, makeIdentity())
    const pings: Array<unknown> = []
    peer.ws.on("ping", (data) => pings.push(data))
    await adjust(5_000)
    await eventually(() => pings.length === 1, "the first ping")
    await adjust(5_000) // silent for exactly 10 s: not yet
    await eventually(() => pings.length === 2, "the second ping")
    expect(peer.ws.readyState).toBe(WebSocket.OPEN)
    await adjust(5_000)
    expect((await peer.closed).code).toBe(1006)
  })
})

describe("gateway-initiated requests and slow consumers", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(() => gw.close())

  it("sends a request to a node and awaits its response", async () => {
    const { peer, result } = await connectPeer(gw.url, gw.adminToken, { role: "node" })
    peer.ws.on("message", (data) => {
      const m = JSON.parse(data.toString())
      if (m.type === "task.execute" && !("ok" in m)) {
        peer.send({ request_id: m.request_id, type: m.type, ok: true, result: { echoed: m.payload } })
      }
    })
    const answer = await gw.run(Effect.flatMap(GatewayRequests, (r) => r.request(result.client_id, "task.execute", { step: 1 })))
    expect(answer).toEqual({ echoed: { step: 1 } })
    peer.ws.close()
  })

  it("surfaces ok:false from the peer as PeerRequestFailed", async () => {
    const { peer, result } = await connectPeer(gw.url, gw.adminToken, { role: "node" })
    peer.ws.on("message", (data) => {
      const m = JSON.parse(data.toString())
      if (m.type === "task.execute" && !("ok" in m)) {
        peer.send({ request_id: m.request_id, type: m.type, ok: false, error: { code: "tool_failed", message: "boom", details: { evidence: 1 } } })
      }
    })
    const exit = await gw.run(Effect.exit(Effect.flatMap(GatewayRequests, (r) => r.request(result.client_id, "task.execute", {}))))
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toMatch(/PeerRequestFailed.*tool_failed/)
    peer.ws.close()
  })

  it("times out when the peer does not answer", async () => {
    const { peer, result } = await connectPeer(gw.url, gw.adminToken, { role: "node" })
    const exit = await gw.run(Effect.exit(Effect.flatMap(GatewayRequests, (r) => r.request(result.client_id, "task.execute", {}, { timeout: "200 millis" }))))
    expect(JSON.stringify(Exit.isFailure(exit) ? exit.cause : null)).toMatch(/PeerRequestTimeout/)
    peer.ws.close()
  })

  it("fails pending requests promptly when the connection closes", async () => {
    const { peer, result } = await connectPeer(gw.url, gw.adminToken, { role: "node" })
    peer.ws.on("message", () => setTimeout(() => peer.ws.close(), 50))
    const exit = await gw.run(Effect.exit(Effect.flatMap(GatewayRequests, (r) => r.request(result.client_id, "task.execute", {}, { timeout: "60 seconds" }))))
    // PeerDisconnected, not PeerRequestTimeout: it failed when the socket closed, not at the timeout.
    expect(JSON.stringify(Exit.isFailure(exit) ? exit.cause : null)).toMatch(/PeerDisconnected/)
    const pending = await gw.run(Effect.map(GatewayRequests, (r) => r.pendingCount()))
    expect(pending).toBe(0)
  })

  it("fails with PeerNotConnected for an unknown connection", async () => {
    const exit = await gw.run(Effect.exit(Effect.flatMap(GatewayRequests, (r) => r.request("nope", "task.execute", {}))))
    expect(JSON.stringify(Exit.isFailure(exit) ? exit.cause : null)).toMatch(/PeerNotConnected/)
  })

  it("closes a peer that cannot keep up with 1013", async () => {
    const { peer, result } = await connectPeer(gw.url, gw.adminToken)
    peer.ws.pause()
    await gw.run(Effect.gen(function*() {
      const bus = yield* EventBus
      const flood = GatewayEvent.make("test.flood", { payload: Schema.Struct({ i: Schema.Int, pad: Schema.String }), audience: {} })
      for (let i = 0; i < 5000; i++) yield* bus.publish(flood, { i, pad: "x".repeat(2000) })
    }))
    peer.ws.resume()
    expect((await peer.closed).code).toBe(1013)
    await eventually(
      async () => (await gw.run(Effect.map(ConnectionRegistry, (r) => r.get(result.client_id)))) === undefined,
      "the connection to leave the registry"
    )
  })
})

describe("rate limiting of upgrades", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ rateLimitMax: 3 })
  })
  afterAll(() => gw.close())

  it("counts failed upgrades per address and answers 429 with Retry-After", async () => {
    for (let i = 0; i < 3; i++) await expect(openPeer(gw.url, "bad")).rejects.toMatchObject({ status: 401 })
    await expect(openPeer(gw.url, "bad")).rejects.toMatchObject({ status: 429 })
  })

  it("never refuses a valid credential from an address that is over the limit", async () => {
    // The window of this (loopback) address is full from the test above.
    await expect(openPeer(gw.url, "bad")).rejects.toMatchObject({ status: 429 })
    const peer = await openPeer(gw.url, gw.adminToken)
    peer.ws.close()
    expect((await gw.fetch("/openapi.json", { headers: { authorization: `Bearer ${gw.adminToken}` } })).status).toBe(200)
  })

  it("does not count successful upgrades", async () => {
    const gw2 = await startGateway({ rateLimitMax: 3 })
    try {
      const peers = await Promise.all(Array.from({ length: 10 }, () => openPeer(gw2.url, gw2.adminToken)))
      expect(peers).toHaveLength(10)
      for (const p of peers) p.ws.close()
    } finally {
      await gw2.close()
    }
  })
})

describe("scale", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(() => gw.close())

  it("completes 1,000 concurrent handshakes", async () => {
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => connectPeer(gw.url, gw.adminToken, { role: i % 2 === 0 ? "client" : "node" })))
    expect(new Set(results.map((r) => r.result.client_id)).size).toBe(1000)
    const size = await gw.run(Effect.map(ConnectionRegistry, (r) => r.size()))
    expect(size).toBe(1000)
    await Promise.all(results.map((r) => {
      r.peer.ws.close()
      return r.peer.closed
    }))
    await eventually(async () => (await gw.run(Effect.map(ConnectionRegistry, (r) => r.size()))) === 0, "every connection to leave the registry")
  }, 60_000)
})
