/**
 * WS upgrade and handshake v2 against a real gateway (gateway-api.md
 * "WebSocket API", "Authentication"; reference §2.8, §5.2).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration } from "effect"
import { TestClock } from "effect/testing"
import WebSocket from "ws"
import { proofTranscript } from "../../services/ws-sessions/deviceIdentity.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, handshake, makeIdentity, openPeer } from "../support/wsPeer.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 10_000 })
})
afterAll(() => gw.close())

const issue = async (body: Record<string, unknown>) => {
  const res = await postJson(gw, "/auth/device-tokens/issue", { scopes: [], ...body }, gw.adminToken)
  expect(res.status).toBe(201)
  return (await readJson(res)).token as string
}

describe("upgrade credentials", () => {
  it.each(["bearer", "subprotocol", "subprotocol-reversed", "cookie"] as const)("accepts the admin token via %s", async (transport) => {
    const peer = await openPeer(gw.url, gw.adminToken, transport)
    if (transport.startsWith("subprotocol")) expect(peer.protocol).toBe("svc-v1")
    const result = await handshake(peer, makeIdentity())
    expect(result.role).toBe("client")
    peer.ws.close()
  })

  it("never echoes an svc-auth subprotocol", async () => {
    const secret = `svc-auth.${Buffer.from(gw.adminToken).toString("base64url")}`
    const peer = await openPeer(gw.url, gw.adminToken, "bearer", { extraProtocols: [secret, "other.v1"] })
    expect(peer.protocol).toBe("other.v1")
    peer.ws.close()
    // Offered alone, it is not selected: the server answers without a subprotocol.
    await expect(openPeer(gw.url, gw.adminToken, "bearer", { extraProtocols: [secret] })).rejects.toThrow(/no subprotocol/)
  })

  it("refuses a missing or invalid token with 401 before the upgrade", async () => {
    await expect(openPeer(gw.url, "", "none")).rejects.toMatchObject({ status: 401 })
    await expect(openPeer(gw.url, "wrong", "bearer")).rejects.toMatchObject({ status: 401 })
    await expect(openPeer(gw.url, "wrong", "subprotocol")).rejects.toMatchObject({ status: 401 })
  })

  it("ignores the cookie on cross-origin upgrades", async () => {
    await expect(openPeer(gw.url, gw.adminToken, "cookie", { origin: "http://evil.example" })).rejects.toMatchObject({ status: 401 })
  })

  it("refuses upgrades on any other path", async () => {
    await expect(openPeer(gw.url, gw.adminToken, "bearer", { path: "/other" })).rejects.toMatchObject({ status: 404 })
  })

  it("binds a device token to its role and device", async () => {
    const identity = makeIdentity()
    const token = await issue({ device_id: identity.deviceId, role: "node" })
    const ok = await connectPeer(gw.url, token, { role: "node", identity })
    expect(ok.result.device_id).toBe(identity.deviceId)
    ok.peer.ws.close()

    const wrongRole = await openPeer(gw.url, token)
    wrongRole.send({ request_id: "1", type: "connect.init", payload: { protocol_rev: 2, role: "client", device: { device_id: identity.deviceId, pubkey: identity.pubkey }, capabilities: [] } })
    expect((await wrongRole.closed).code).toBe(4001)

    const other = makeIdentity()
    const wrongDevice = await openPeer(gw.url, token)
    wrongDevice.send({ request_id: "1", type: "connect.init", payload: { protocol_rev: 2, role: "node", device: { device_id: other.deviceId, pubkey: other.pubkey }, capabilities: [] } })
    expect((await wrongDevice.closed).code).toBe(4001)
  })
})

const init = (identity = makeIdentity(), overrides: Record<string, unknown> = {}) => ({
  request_id: "init-1",
  type: "connect.init",
  payload: { protocol_rev: 2, role: "client", device: { device_id: identity.deviceId, pubkey: identity.pubkey }, capabilities: [], ...overrides }
})

describe("handshake close codes", () => {
  it("4003 for invalid JSON before the handshake", async () => {
    const peer = await openPeer(gw.url, gw.adminToken)
    peer.send("{nope")
    expect(await peer.closed).toEqual({ code: 4003, reason: "invalid json" })
  })

  it("4003 when the first message is not connect.init", async () => {
    const peer = await openPeer(gw.url, gw.adminToken)
    peer.send({ request_id: "1", type: "ping", payload: {} })
    expect((await peer.closed).code).toBe(4003)
  })

  it("4003 for the legacy connect message, telling the caller what to use", async () => {
    const peer = await openPeer(gw.url, gw.adminToken)
    peer.send({ request_id: "1", type: "connect", payload: {} })
    const closed = await peer.closed
    expect(closed.code).toBe(4003)
    expect(closed.reason).toMatch(/connect\.init and connect\.proof/)
  })

  it("4005 for a protocol_rev mismatch", async () => {
    const peer = await openPeer(gw.url, gw.adminToken)
    peer.send(init(makeIdentity(), { protocol_rev: 1 }))
    expect((await peer.closed).code).toBe(4005)
  })

  it("4006 when device_id is not derived from the public key", async () => {
    const peer = await openPeer(gw.url, gw.adminToken)
    const a = makeIdentity()
    peer.send({ ...init(a), payload: { ...init(a).payload, device: { device_id: makeIdentity().deviceId, pubkey: a.pubkey } } })
    expect((await peer.closed).code).toBe(4006)
  })

  it("4007 for an invalid proof", async () => {
    const identity = makeIdentity()
    const peer = await openPeer(gw.url, gw.adminToken)
    peer.send(init(identity))
    const res = await peer.next((m) => m.request_id === "init-1")
    const forged = makeIdentity().sign(proofTranscript({ protocolRev: 2, role: "client", deviceId: identity.deviceId, connectionId: res.result.connection_id, challenge: res.result.challenge }))
    peer.send({ request_id: "p", type: "connect.proof", payload: { connection_id: res.result.connection_id, proof: forged } })
    expect(await peer.closed).toEqual({ code: 4007, reason: "invalid proof" })
  })

  it("4003 for a connection_id mismatch", async () => {
    const identity = makeIdentity()
    const peer = await openPeer(gw.url, gw.adminToken)
    peer.send(init(identity))
    await peer.next()
    peer.send({ request_id: "p", type: "connect.proof", payload: { connection_id: "other", proof: "AAAA" } })
    expect(await peer.closed).toEqual({ code: 4003, reason: "connection_id mismatch" })
  })

  it("answers connect.init with a uuid connection_id and a 32-byte challenge", async () => {
    const identity = makeIdentity()
    const peer = await openPeer(gw.url, gw.adminToken)
    peer.send(init(identity))
    const res = await peer.next()
    expect(res).toMatchObject({ request_id: "init-1", type: "connect.init", ok: true })
    expect(res.result.connection_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(Buffer.from(res.result.challenge, "base64url")).toHaveLength(32)
    peer.ws.close()
  })
})

describe("handshake timeout (test clock)", () => {
  let clocked: TestGateway
  beforeAll(async () => {
    clocked = await startGateway({}, undefined, { clock: "test" })
  })
  afterAll(() => clocked.close())

  it("4002 when connect.proof does not come within SVC_WS_HANDSHAKE_TIMEOUT_MS (10 s)", async () => {
    const peer = await openPeer(clocked.url, clocked.adminToken)
    // connect.init answered: the handshake (and its deadline) is running.
    peer.send(init(makeIdentity()))
    expect((await peer.next()).ok).toBe(true)
    await clocked.run(TestClock.adjust(Duration.millis(9_999)))
    expect(peer.ws.readyState).toBe(WebSocket.OPEN)
    await clocked.run(TestClock.adjust(Duration.millis(1)))
    expect(await peer.closed).toEqual({ code: 4002, reason: "handshake timeout" })
  })
})
