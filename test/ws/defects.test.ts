/**
 * Hardening of the WS connection actor (issue #7 §2): free-form fields are
 * bounded before anything is stored, and a defect after the handshake never
 * leaves a silent socket (close 1011, logged with the connection id).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Presence } from "../../services/ws-sessions/Presence.ts"
import { readJson, startGateway, type StructuredLog, type TestGateway } from "../support/gateway.ts"
import { connectPeer, handshake, makeIdentity, openPeer } from "../support/wsPeer.ts"

/** 20,000 nested arrays: about 40 KB of JSON that `JSON.stringify` cannot serialise back (stack overflow). */
const deeplyNested = (): string => "[".repeat(20_000) + "]".repeat(20_000)

describe("bounded free-form fields", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(() => gw.close())

  it("refuses deeply nested presence metadata, stores nothing, and /presence keeps answering", async () => {
    // A device token with no scopes at all may send presence.beacon.
    const identity = makeIdentity()
    const issued = await readJson(await gw.fetch("/auth/device-tokens/issue", {
      method: "POST",
      headers: { authorization: `Bearer ${gw.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ device_id: identity.deviceId, role: "client", scopes: [] })
    }))
    const { peer, result } = await connectPeer(gw.url, issued.token, { identity })
    for (let i = 0; i < 2; i++) {
      peer.send(`{"request_id":"poison-${i}","type":"presence.beacon","payload":{"host":"h","metadata":{"x":${deeplyNested()}}}}`)
      const answer = await peer.next((m) => m.request_id === `poison-${i}`)
      expect(answer.ok).toBe(false)
      expect(answer.error.code).toBe("invalid_request")
      expect(answer.error.message).toMatch(/^metadata: nests deeper than 8 levels/)
    }
    const presence = await gw.fetch("/presence", { headers: { authorization: `Bearer ${gw.adminToken}` } })
    expect(presence.status).toBe(200)
    const entry = (await readJson(presence)).entries.find((e: { instance_id: string }) => e.instance_id === result.device_id)
    expect(entry?.metadata).toBeUndefined()
    // The connection is unharmed.
    expect((await peer.request("ping")).ok).toBe(true)
    peer.ws.close()
  })

  it.each([
    ["more than 8 KiB of metadata", { metadata: { blob: "x".repeat(9000) } }, /metadata: is larger than 8192 bytes/],
    ["more than 256 metadata keys", { metadata: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i])) }, /metadata: has more than 256/],
    ["a 300-character host", { host: "h".repeat(300) }, /host: expected at most 255 characters/]
  ])("refuses %s", async (_name, payload, message) => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const answer = await peer.request("presence.beacon", payload)
    expect(answer.ok).toBe(false)
    expect(answer.error.code).toBe("invalid_request")
    expect(answer.error.message).toMatch(message)
    peer.ws.close()
  })

  it("accepts metadata within the bounds and serves it back", async () => {
    const { peer, result } = await connectPeer(gw.url, gw.adminToken)
    const metadata = { a: { b: { c: { d: { e: { f: { g: [1] } } } } } }, note: "x".repeat(4000) }
    const answer = await peer.request("presence.beacon", { host: "ok", metadata })
    expect(answer.ok).toBe(true)
    const presence = await readJson(await gw.fetch("/presence", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    expect(presence.entries.find((e: { instance_id: string }) => e.instance_id === result.device_id)?.metadata).toEqual(metadata)
    peer.ws.close()
  })

  it("refuses an over-long request_id with an error event, never echoing it", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    peer.send({ request_id: "r".repeat(10_000), type: "ping" })
    const event = await peer.next((m) => m.type === "error")
    expect(event.payload.code).toBe("invalid_message")
    expect(JSON.stringify(event).length).toBeLessThan(1000)
    peer.ws.close()
  })
})

/** A Presence whose upsert dies: on connect when `failOnConnect`, else for a beacon with host "boom". */
const failingPresence = (failOnConnect: boolean) =>
  Layer.succeed(Presence, Presence.of({
    upsert: (input) =>
      (input.reason === "connect" && failOnConnect) || input.beacon?.host === "boom"
        ? Effect.die(new Error("injected presence failure"))
        : Effect.succeed({ instance_id: input.deviceId, role: input.role, last_seen_at: new Date(0).toISOString(), reason: input.reason }),
    prune: Effect.succeed([]),
    snapshot: Effect.succeed({ generatedAt: new Date(0).toISOString(), entries: [] })
  }))

const failureLog = (logs: ReadonlyArray<StructuredLog>, connectionId: string) =>
  logs.find((l) => l.level === "ERROR" && l.annotations.connection_id === connectionId)

describe("a defect after the handshake closes the socket 1011 and is logged", () => {
  const logs: Array<StructuredLog> = []
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({}, undefined, { override: failingPresence(false), logs })
  })
  afterAll(() => gw.close())

  it("in a request handler: answers internal_error, closes 1011, logs the cause with the connection id", async () => {
    const { peer, result } = await connectPeer(gw.url, gw.adminToken)
    const answer = await peer.request("presence.beacon", { host: "boom" })
    expect(answer).toMatchObject({ ok: false, error: { code: "internal_error" } })
    expect((await peer.closed).code).toBe(1011)
    const entry = failureLog(logs, result.client_id)
    expect(entry?.annotations.cause).toContain("injected presence failure")
    expect(entry?.annotations.type).toBe("presence.beacon")
    const connections = await readJson(await gw.fetch("/connections", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    expect(connections.connections.map((c: { connection_id: string }) => c.connection_id)).not.toContain(result.client_id)
  })

  it("other connections are unaffected", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    expect((await peer.request("presence.beacon", { host: "fine" })).ok).toBe(true)
    peer.ws.close()
  })
})

describe("a defect while registering a connection", () => {
  const logs: Array<StructuredLog> = []
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({}, undefined, { override: failingPresence(true), logs })
  })
  afterAll(() => gw.close())

  it("closes the socket 1011 right after connect.proof instead of leaving it silent", async () => {
    const peer = await openPeer(gw.url, gw.adminToken)
    const result = await handshake(peer, makeIdentity())
    expect((await peer.closed).code).toBe(1011)
    expect(failureLog(logs, result.client_id)?.annotations.cause).toContain("injected presence failure")
  })
})
