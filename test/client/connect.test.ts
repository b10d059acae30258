/**
 * GatewayClient upgrade credentials and handshake v2 against the fake
 * gateway (gateway-api.md "Authentication" WebSocket upgrade credentials;
 * reference §2.8, §5.2).
 */
import { describe, expect, it } from "@effect/vitest"
import type { AddressInfo } from "node:net"
import { WebSocketServer } from "ws"
import { GatewayClient, GatewayClientError, toWebSocketUrl } from "../../src/client/GatewayClient.ts"
import { generateDeviceIdentity } from "../../src/client/identity.ts"
import { deviceIdFromPubkey } from "../../services/ws-sessions/deviceIdentity.ts"
import { makeClient, nextEmit, rejectionOf, startFake } from "./support.ts"

describe("credential transports", () => {
  it("bearer (default): Authorization header, no cookie, no subprotocol", async () => {
    const gateway = await startFake()
    const identity = generateDeviceIdentity()
    const client = makeClient(gateway, { identity })
    const connected = nextEmit(client, "connected")
    const session = await client.connect()
    expect(session).toEqual({ client_id: gateway.peers[0]!.clientId, device_id: identity.device_id, role: "client" })
    expect(await connected).toEqual({ ...session, reconnected: false, paired: false })
    expect(client.state).toBe("connected")
    expect(client.session).toEqual(session)
    const [upgrade] = gateway.upgrades
    expect(upgrade).toMatchObject({ credential: "bearer", authorization: "Bearer test-token", cookie: undefined, offeredProtocols: [] })
    expect(upgrade!.negotiated).toBeUndefined()
  })

  it("cookie: svc_admin_token cookie with Origin equal to the URL's http origin", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway, { credentials: "cookie" })
    await client.connect()
    const [upgrade] = gateway.upgrades
    expect(upgrade).toMatchObject({
      credential: "cookie",
      authorization: undefined,
      cookie: "svc_admin_token=test-token",
      origin: `http://127.0.0.1:${gateway.port}`,
      host: `127.0.0.1:${gateway.port}`,
      offeredProtocols: []
    })
  })

  it("subprotocol: offers svc-v1 and svc-auth.<base64url(token)>; the gateway negotiates svc-v1", async () => {
    const token = "tok/with+chars=="
    const gateway = await startFake(token)
    const client = makeClient(gateway, { credentials: "subprotocol" })
    await client.connect()
    const [upgrade] = gateway.upgrades
    expect(upgrade).toMatchObject({
      credential: "subprotocol",
      token,
      authorization: undefined,
      cookie: undefined,
      offeredProtocols: ["svc-v1", "svc-auth." + Buffer.from(token).toString("base64url")],
      negotiated: "svc-v1"
    })
    expect(gateway.peers[0]!.socket.protocol).toBe("svc-v1")
  })

  it("subprotocol: a gateway that does not answer svc-v1 is a fatal protocol error", async () => {
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0, handleProtocols: () => false })
    await new Promise((resolve) => server.once("listening", resolve))
    try {
      const client = new GatewayClient({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        token: "t",
        credentials: "subprotocol",
        role: "client",
        identity: generateDeviceIdentity(),
        reconnect: false
      })
      const error = (await rejectionOf(client.connect())) as GatewayClientError
      expect(error).toBeInstanceOf(GatewayClientError)
      expect(error).toMatchObject({ code: "protocol_error", fatal: true })
      expect(error.message).toBe("gateway did not negotiate svc-v1: Server sent no subprotocol")
      await client.close()
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("rejects tokens unfit for the transport without echoing them", () => {
    const gateway = { url: "http://127.0.0.1:1" }
    const base = { url: gateway.url, role: "client" as const, identity: generateDeviceIdentity() }
    const secret = "sec ret;value"
    for (const credentials of ["bearer", "cookie"] as const) {
      const error = (() => {
        try {
          new GatewayClient({ ...base, token: secret, credentials })
        } catch (e) {
          return e as GatewayClientError
        }
        throw new Error("expected a throw")
      })()
      expect(error.code).toBe("invalid_options")
      expect(error.message).not.toContain("sec")
    }
    expect(() => new GatewayClient({ ...base, token: "" })).toThrow(/token must not be empty/)
    // base64url makes any token fit the subprotocol transport
    expect(() => new GatewayClient({ ...base, token: secret, credentials: "subprotocol" })).not.toThrow()
  })
})

describe("handshake", () => {
  it("sends connect.init (protocol_rev 2, device, capabilities) and a proof the gateway verifies", async () => {
    const gateway = await startFake()
    const identity = generateDeviceIdentity()
    const client = makeClient(gateway, {
      identity,
      role: "node",
      capabilities: [{ id: "demo.echo", version: "1.0.0" }],
      device: { label: "lab box", platform: "linux", version: "0.1.0", mode: "node" }
    })
    const session = await client.connect()
    expect(session.role).toBe("node")
    const peer = gateway.peers[0]!
    expect(peer.init).toEqual({
      role: "node",
      device: {
        device_id: identity.device_id,
        pubkey: identity.pubkey,
        label: "lab box",
        platform: "linux",
        version: "0.1.0",
        mode: "node"
      },
      capabilities: [{ id: "demo.echo", version: "1.0.0" }]
    })
  })

  it("connect() is idempotent while connecting and once connected", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway)
    const [a, b] = await Promise.all([client.connect(), client.connect()])
    expect(b).toEqual(a)
    expect(await client.connect()).toEqual(a)
    expect(gateway.upgrades).toHaveLength(1)
  })

  it("close() during the handshake rejects connect() and leaves the client closed", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway)
    const attempt = rejectionOf(client.connect())
    await client.close()
    expect(await attempt).toMatchObject({ code: "connection_closed" })
    expect(client.state).toBe("closed")
    expect(client.session).toBeUndefined()
  })

  it("a wrong token: close 4001, fatal, and the token is not in the error", async () => {
    const gateway = await startFake("right-token")
    for (const credentials of ["bearer", "cookie", "subprotocol"] as const) {
      const client = makeClient(gateway, { token: "wrong-secret-token", credentials })
      const error = (await rejectionOf(client.connect())) as GatewayClientError
      expect(error).toBeInstanceOf(GatewayClientError)
      expect(error).toMatchObject({ code: "connection_closed", closeCode: 4001, closeReason: "unauthorized", fatal: true })
      expect(error.message).toBe("connection closed (code 4001 unauthorized)")
      expect(error.message).not.toContain("wrong-secret-token")
      expect(client.state).toBe("idle")
    }
  })

  it("a proof signed by another key: close 4007, fatal", async () => {
    const gateway = await startFake()
    const identity = { ...generateDeviceIdentity(), private_key: generateDeviceIdentity().private_key }
    const error = (await rejectionOf(makeClient(gateway, { identity }).connect())) as GatewayClientError
    expect(error).toMatchObject({ code: "connection_closed", closeCode: 4007, fatal: true })
  })

  it("a device_id not derived from the pubkey: close 4006, fatal", async () => {
    const gateway = await startFake()
    const identity = { ...generateDeviceIdentity(), device_id: generateDeviceIdentity().device_id }
    expect(identity.device_id).not.toBe(deviceIdFromPubkey(identity.pubkey))
    const error = (await rejectionOf(makeClient(gateway, { identity }).connect())) as GatewayClientError
    expect(error).toMatchObject({ code: "connection_closed", closeCode: 4006, fatal: true })
  })

  it("connect.init answered ok:false: handshake_refused, fatal, with the gateway error as cause", async () => {
    const gateway = await startFake()
    gateway.refuseInit = { code: "unauthorized", message: "role not allowed" }
    const error = (await rejectionOf(makeClient(gateway).connect())) as GatewayClientError
    expect(error).toMatchObject({ code: "handshake_refused", fatal: true })
    expect(error.message).toBe("gateway refused connect.init: unauthorized: role not allowed")
    expect((error.cause as { code: string }).code).toBe("unauthorized")
  })

  it("an HTTP answer to the upgrade: upgrade_rejected (401 fatal, 503 not)", async () => {
    const gateway = await startFake()
    gateway.rejectUpgrades = { count: 1, status: 401 }
    const unauthorized = (await rejectionOf(makeClient(gateway).connect())) as GatewayClientError
    expect(unauthorized).toMatchObject({ code: "upgrade_rejected", httpStatus: 401, fatal: true })
    gateway.rejectUpgrades = { count: 1, status: 503 }
    const unavailable = (await rejectionOf(makeClient(gateway).connect())) as GatewayClientError
    expect(unavailable).toMatchObject({ code: "upgrade_rejected", httpStatus: 503, fatal: false })
    expect(unavailable.message).toBe("gateway rejected the WebSocket upgrade with HTTP 503")
  })

  it("a gateway that never answers connect.init: handshake_timeout", async () => {
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0 })
    await new Promise((resolve) => server.once("listening", resolve))
    try {
      const client = new GatewayClient({
        url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`,
        token: "t",
        role: "client",
        identity: generateDeviceIdentity(),
        handshakeTimeoutMs: 100,
        reconnect: false
      })
      const error = (await rejectionOf(client.connect())) as GatewayClientError
      expect(error).toMatchObject({ code: "handshake_timeout", fatal: false })
      await client.close()
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("a refused TCP connection: connection_closed 1006, not fatal", async () => {
    const gateway = await startFake()
    const url = gateway.url
    await gateway.close()
    const client = new GatewayClient({ url, token: "t", role: "client", identity: generateDeviceIdentity() })
    const error = (await rejectionOf(client.connect())) as GatewayClientError
    expect(error).toMatchObject({ code: "connection_closed", closeCode: 1006, fatal: false })
    expect(error.message).toMatch(/ECONNREFUSED/)
    expect(client.state).toBe("idle")
    await client.close()
  })
})

describe("toWebSocketUrl", () => {
  it.each([
    ["http://127.0.0.1:8788", "ws://127.0.0.1:8788/ws"],
    ["http://127.0.0.1:8788/", "ws://127.0.0.1:8788/ws"],
    ["https://gw.example.com", "wss://gw.example.com/ws"],
    ["ws://gw.example.com:9000/ws", "ws://gw.example.com:9000/ws"],
    ["wss://gw.example.com/ws/", "wss://gw.example.com/ws"],
    ["https://gw.example.com/prefix", "wss://gw.example.com/prefix/ws"],
    ["http://h:1/?x=1#frag", "ws://h:1/ws?x=1"]
  ])("%s → %s", (input, expected) => {
    expect(toWebSocketUrl(input).href).toBe(expected)
  })

  it("rejects other schemes and garbage", () => {
    expect(() => toWebSocketUrl("ftp://h")).toThrow(/http, https, ws or wss/)
    expect(() => toWebSocketUrl("not a url")).toThrow(/not a valid URL/)
  })

  it("connects with a full ws:// /ws URL", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway, { url: `ws://127.0.0.1:${gateway.port}/ws` })
    await client.connect()
    expect(client.url).toBe(`ws://127.0.0.1:${gateway.port}/ws`)
  })
})
