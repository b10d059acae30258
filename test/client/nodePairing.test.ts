/**
 * Node mode of the SDK (gateway-api.md "Pairing"; reference §4): a node
 * stores the scoped token of `pairing.approved` and reconnects with it,
 * connects with a stored one on start, and forgets it and falls back to its
 * bootstrap token when the gateway refuses it (HTTP 401, close 4001/4008).
 * The token never reaches a listener, a log line or an error message.
 * No timers are waited on: every step waits for the event it causes.
 */
import { describe, expect, it } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  GatewayClient,
  GatewayClientError,
  type ScopedTokenStore,
  toWebSocketUrl
} from "../../src/client/GatewayClient.ts"
import { generateDeviceIdentity } from "../../src/client/identity.ts"
import { fileScopedTokenStore, memoryScopedTokenStore, scopedTokenPathFor } from "../../src/client/scopedToken.ts"
import type { FakeGateway, FakePeer } from "./fakeGateway.ts"
import { makeClient, nextEmit, record, rejectionOf, startFake } from "./support.ts"

const scopedToken = () => `svc-node.v1.${randomBytes(32).toString("base64url")}`

const pairingFor = (nodeId: string, pairingId = 7) => ({
  pairing_id: pairingId,
  status: "approved",
  trust_level: "local",
  requested_at: "2025-01-01T00:00:00.000Z",
  node: { node_id: nodeId, capabilities: [{ id: "demo.echo", version: "1.0.0" }], last_seen_at: "2025-01-01T00:00:00.000Z" },
  capability_allowlist: [{ id: "demo.echo", version: "1.0.0" }],
  resolution: { decision: "approved", resolved_at: "2025-01-01T00:00:01.000Z" },
  resolved_at: "2025-01-01T00:00:01.000Z"
})

/** What the gateway does on approval: accept the new token, send it to the node's connection. */
const approve = (gateway: FakeGateway, peer: FakePeer, token: string, nodeId = String(peer.init.device["device_id"])) => {
  gateway.acceptedTokens.add(token)
  peer.sendEvent("pairing.approved", { pairing: pairingFor(nodeId), scoped_token: token })
}

const withDir = async (body: (dir: string) => Promise<void>) => {
  const dir = mkdtempSync(join(tmpdir(), "svc-node-pairing-"))
  try {
    await body(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Everything a listener saw, as text (to check that the token never appears). */
const textOf = (values: ReadonlyArray<unknown>): string =>
  values
    .map((value) =>
      value instanceof Error
        ? `${value.message} ${value.cause instanceof Error ? value.cause.message : String(value.cause)}`
        : JSON.stringify(value)
    )
    .join("\n")

describe("node mode: pairing.approved", () => {
  it("stores the scoped token, strips it from the event, and reconnects with it at once (even with reconnect: false)", async () => {
    const gateway = await startFake()
    const identity = generateDeviceIdentity()
    const store = memoryScopedTokenStore()
    const client = makeClient(gateway, { role: "node", identity, scopedTokens: store })
    const events = record(client, "event")
    const errors = record(client, "error")
    const first = await client.connect()
    expect(client.paired).toBe(false)

    const token = scopedToken()
    const paired = nextEmit(client, "paired")
    const disconnected = nextEmit(client, "disconnected")
    const connected = nextEmit(client, "connected")
    const nextPeer = gateway.nextPeer()
    approve(gateway, gateway.peers[0]!, token)

    expect(await paired).toEqual({ pairing: pairingFor(identity.device_id), stored: true })
    expect(await disconnected).toEqual({ code: 1000, reason: "switching to the scoped token", fatal: false, willReconnect: true })
    expect(await connected).toEqual({
      client_id: gateway.peers[1]!.clientId,
      device_id: first.device_id,
      role: "node",
      reconnected: true,
      paired: true
    })
    expect((await nextPeer).upgrade).toMatchObject({ credential: "bearer", token })
    expect(await gateway.peers[0]!.closed).toEqual({ code: 1000, reason: "switching to the scoped token" })
    expect(client.paired).toBe(true)
    expect(client.state).toBe("connected")
    expect(await store.load()).toEqual({
      scoped_token: token,
      device_id: identity.device_id,
      gateway: client.url,
      pairing_id: 7
    })
    expect(events).toEqual([
      expect.objectContaining({ type: "pairing.approved", payload: { pairing: pairingFor(identity.device_id) } })
    ])
    expect(errors).toEqual([])
    expect(textOf(events)).not.toContain(token)
  })

  it("uses the scoped token for later reconnects, not the bootstrap token", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway, { role: "node", reconnect: { initialDelayMs: 1, maxDelayMs: 1 } })
    await client.connect()
    const token = scopedToken()
    const switched = nextEmit(client, "connected")
    approve(gateway, gateway.peers[0]!, token)
    await switched
    const again = nextEmit(client, "connected")
    await gateway.peers[1]!.terminate()
    expect(await again).toMatchObject({ reconnected: true, paired: true })
    expect(gateway.upgrades.map((u) => u.token)).toEqual([gateway.token, token, token])
  })

  it("ignores the event on a client, and a pairing.approved for another device on a node", async () => {
    const gateway = await startFake()
    const operator = makeClient(gateway)
    const operatorEvents = record(operator, "event")
    await operator.connect()
    const token = scopedToken()
    const seen = nextEmit(operator, "event")
    approve(gateway, gateway.peers[0]!, token)
    expect((await seen).payload).toEqual({ pairing: pairingFor(String(gateway.peers[0]!.init.device["device_id"])) })
    expect(operator.paired).toBe(false)

    const store = memoryScopedTokenStore()
    const node = makeClient(gateway, { role: "node", scopedTokens: store })
    await node.connect()
    const reported = nextEmit(node, "error")
    approve(gateway, gateway.peers[1]!, token, "dev_someoneelse")
    expect(await reported).toMatchObject({ code: "protocol_error", message: "pairing.approved without a scoped_token for this device" })
    expect(node.paired).toBe(false)
    expect(await store.load()).toBeUndefined()
    expect(gateway.upgrades).toHaveLength(2)
    expect(textOf(operatorEvents)).not.toContain(token)
  })

  it("still switches (and says stored: false) when the store cannot save; the error does not contain the token", async () => {
    const gateway = await startFake()
    const store: ScopedTokenStore = {
      load: () => Promise.resolve(undefined),
      save: () => Promise.reject(new Error("disk full")),
      clear: () => Promise.resolve()
    }
    const client = makeClient(gateway, { role: "node", scopedTokens: store })
    await client.connect()
    const token = scopedToken()
    const reported = nextEmit(client, "error")
    const paired = nextEmit(client, "paired")
    const connected = nextEmit(client, "connected")
    approve(gateway, gateway.peers[0]!, token)
    const error = await reported
    expect(error).toMatchObject({ code: "token_store_error", message: "cannot store the scoped token: disk full" })
    expect((await paired).stored).toBe(false)
    expect((await connected).paired).toBe(true)
  })
})

describe("node mode: a stored scoped token", () => {
  it("is used on start (file store next to the identity)", () =>
    withDir(async (dir) => {
      const gateway = await startFake()
      const identity = generateDeviceIdentity()
      const path = scopedTokenPathFor(join(dir, "node.json"))
      const token = scopedToken()
      await fileScopedTokenStore(path).save({ scoped_token: token, device_id: identity.device_id, gateway: toWebSocketUrl(gateway.url).href })
      gateway.acceptedTokens.add(token)
      const client = makeClient(gateway, { role: "node", identity, scopedTokens: fileScopedTokenStore(path) })
      const connected = nextEmit(client, "connected")
      await client.connect()
      expect(await connected).toMatchObject({ reconnected: false, paired: true })
      expect(client.paired).toBe(true)
      expect(gateway.upgrades.map((u) => u.token)).toEqual([token])
    }))

  it("is ignored when stored for another device or another gateway (and kept)", () =>
    withDir(async (dir) => {
      const gateway = await startFake()
      const identity = generateDeviceIdentity()
      const token = scopedToken()
      gateway.acceptedTokens.add(token)
      for (const [name, stored] of [
        ["device", { device_id: generateDeviceIdentity().device_id, gateway: toWebSocketUrl(gateway.url).href }],
        ["gateway", { device_id: identity.device_id, gateway: "ws://gateway.example:8788/ws" }]
      ] as const) {
        const path = join(dir, `${name}.token`)
        await fileScopedTokenStore(path).save({ scoped_token: token, ...stored })
        const client = makeClient(gateway, { role: "node", identity, scopedTokens: fileScopedTokenStore(path) })
        expect((await client.connect()).role).toBe("node")
        expect(client.paired).toBe(false)
        expect(existsSync(path)).toBe(true)
        await client.close()
      }
      expect(gateway.upgrades.map((u) => u.token)).toEqual([gateway.token, gateway.token])
    }))

  it("refused at the upgrade (HTTP 401): forgotten, and connect() goes on with the bootstrap token", () =>
    withDir(async (dir) => {
      const gateway = await startFake()
      const identity = generateDeviceIdentity()
      const path = join(dir, "node.json.token")
      const token = scopedToken()
      await fileScopedTokenStore(path).save({ scoped_token: token, device_id: identity.device_id, gateway: toWebSocketUrl(gateway.url).href })
      gateway.unauthorizedTokens.add(token)
      const client = makeClient(gateway, { role: "node", identity, scopedTokens: fileScopedTokenStore(path) })
      const unpaired = nextEmit(client, "unpaired")
      const connected = nextEmit(client, "connected")
      const errors = record(client, "error")
      await client.connect()
      expect(await unpaired).toEqual({ closeCode: undefined, closeReason: undefined, httpStatus: 401, fallback: true })
      expect(await connected).toMatchObject({ paired: false, reconnected: false })
      expect(client.paired).toBe(false)
      expect(gateway.refusedUpgrades).toEqual([token])
      expect(gateway.upgrades.map((u) => u.token)).toEqual([gateway.token])
      expect(existsSync(path)).toBe(false)
      expect(errors).toEqual([])
    }))

  it("refused during the handshake (close 4001) without a bootstrap token: forgotten, connect() rejects fatally", async () => {
    const gateway = await startFake()
    const identity = generateDeviceIdentity()
    const token = scopedToken()
    const store = memoryScopedTokenStore({ scoped_token: token, device_id: identity.device_id, gateway: toWebSocketUrl(gateway.url).href })
    const client = new GatewayClient({ url: gateway.url, role: "node", identity, scopedTokens: store, reconnect: false })
    try {
      const unpaired = nextEmit(client, "unpaired")
      const error = await rejectionOf(client.connect())
      expect(error).toMatchObject({ code: "connection_closed", closeCode: 4001, fatal: true })
      expect(error.message).not.toContain(token)
      expect(await unpaired).toEqual({ closeCode: 4001, closeReason: "unauthorized", httpStatus: undefined, fallback: false })
      expect(await store.load()).toBeUndefined()
      expect(client.state).toBe("idle")
      // nothing left to authenticate with
      expect(await rejectionOf(client.connect())).toMatchObject({ code: "invalid_options", fatal: true, message: expect.stringMatching(/^no credential/) })
    } finally {
      await client.close()
    }
  })

  it("a corrupt token file is reported without its content, and the bootstrap token is used", () =>
    withDir(async (dir) => {
      const gateway = await startFake()
      const path = join(dir, "node.json.token")
      const token = scopedToken()
      writeFileSync(path, token)
      const client = makeClient(gateway, { role: "node", scopedTokens: fileScopedTokenStore(path) })
      const reported = nextEmit(client, "error")
      await client.connect()
      const error = await reported
      expect(error).toMatchObject({ code: "token_store_error" })
      expect(error.message).toBe(`cannot load the stored scoped token: scoped token file ${path}: not valid JSON (corrupt file?)`)
      expect(textOf([error])).not.toContain(token)
      expect(client.paired).toBe(false)
    }))
})

describe("node mode: the gateway refuses the scoped token of a live connection", () => {
  it("close 4001 (pairing revoked): forgets it and reconnects with the bootstrap token (pending again)", async () => {
    const gateway = await startFake()
    const store = memoryScopedTokenStore()
    const client = makeClient(gateway, { role: "node", scopedTokens: store })
    await client.connect()
    const token = scopedToken()
    const switched = nextEmit(client, "connected")
    approve(gateway, gateway.peers[0]!, token)
    await switched

    gateway.acceptedTokens.delete(token)
    const disconnected = nextEmit(client, "disconnected")
    const unpaired = nextEmit(client, "unpaired")
    const back = nextEmit(client, "connected")
    await gateway.peers[1]!.close(4001, "pairing revoked")
    expect(await disconnected).toEqual({ code: 4001, reason: "pairing revoked", fatal: false, willReconnect: true })
    expect(await unpaired).toEqual({ closeCode: 4001, closeReason: "pairing revoked", httpStatus: undefined, fallback: true })
    expect(await back).toMatchObject({ reconnected: true, paired: false })
    expect(client.paired).toBe(false)
    expect(await store.load()).toBeUndefined()
    expect(gateway.upgrades.map((u) => u.token)).toEqual([gateway.token, token, gateway.token])
  })

  it("close 4008 (scoped token mismatch) without a bootstrap token: forgets it and stops", async () => {
    const gateway = await startFake()
    const identity = generateDeviceIdentity()
    const token = scopedToken()
    gateway.acceptedTokens.add(token)
    const store = memoryScopedTokenStore({ scoped_token: token, device_id: identity.device_id, gateway: toWebSocketUrl(gateway.url).href })
    const client = new GatewayClient({ url: gateway.url, role: "node", identity, scopedTokens: store, reconnect: { initialDelayMs: 1 } })
    try {
      await client.connect()
      const disconnected = nextEmit(client, "disconnected")
      const unpaired = nextEmit(client, "unpaired")
      await gateway.peers[0]!.close(4008, "scoped token mismatch")
      expect(await disconnected).toEqual({ code: 4008, reason: "scoped token mismatch", fatal: true, willReconnect: false })
      expect(await unpaired).toMatchObject({ closeCode: 4008, fallback: false })
      expect(client.state).toBe("idle")
      expect(await store.load()).toBeUndefined()
      expect(gateway.upgrades).toHaveLength(1)
    } finally {
      await client.close()
    }
  })

  it("a bootstrap connection closed 4001 (pairing denied) does not reconnect", async () => {
    const gateway = await startFake()
    const client = makeClient(gateway, { role: "node", reconnect: { initialDelayMs: 1 } })
    await client.connect()
    const unpaired = record(client, "unpaired")
    const disconnected = nextEmit(client, "disconnected")
    await gateway.peers[0]!.close(4001, "pairing denied")
    expect(await disconnected).toEqual({ code: 4001, reason: "pairing denied", fatal: true, willReconnect: false })
    expect(unpaired).toEqual([])
    expect(client.state).toBe("idle")
  })
})

describe("credentials of a node", () => {
  it("a client needs a token; a node may omit it only with a scopedTokens store", () => {
    const identity = generateDeviceIdentity()
    for (const options of [
      { url: "http://127.0.0.1:1", role: "client", identity },
      { url: "http://127.0.0.1:1", role: "node", identity }
    ] as const) {
      expect(() => new GatewayClient(options)).toThrow(GatewayClientError)
    }
    expect(new GatewayClient({ url: "http://127.0.0.1:1", role: "node", identity, scopedTokens: memoryScopedTokenStore() }).paired).toBe(false)
  })
})

describe("fileScopedTokenStore", () => {
  it("saves atomically with mode 0600, loads, clears (idempotently)", () =>
    withDir(async (dir) => {
      const path = join(dir, "nested", "node.json.token")
      const store = fileScopedTokenStore(path)
      expect(await store.load()).toBeUndefined()
      const token = { scoped_token: scopedToken(), device_id: "dev_x", gateway: "ws://127.0.0.1:8788/ws", pairing_id: 3 }
      await store.save(token)
      expect(statSync(path).mode & 0o777).toBe(0o600)
      expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ v: 1, ...token, saved_at: expect.any(String) })
      expect(await store.load()).toEqual(token)
      await store.clear()
      await store.clear()
      expect(existsSync(path)).toBe(false)
    }))

  it("rejects a file of another version or with missing fields (never quoting it)", () =>
    withDir(async (dir) => {
      const path = join(dir, "t.token")
      const token = scopedToken()
      writeFileSync(path, JSON.stringify({ v: 2, scoped_token: token }))
      const error = await rejectionOf(fileScopedTokenStore(path).load())
      expect(error.message).toBe(`scoped token file ${path}: unsupported or missing format version v (expected 1)`)
      writeFileSync(path, JSON.stringify({ v: 1, scoped_token: token }))
      expect((await rejectionOf(fileScopedTokenStore(path).load())).message).toMatch(/device_id must be a non-empty string$/)
    }))
})

describe("operator pairing helpers", () => {
  it("approvePairing, denyPairing and revokePairing send pairing.approve/deny/revoke and resolve with {pairing}", async () => {
    const gateway = await startFake()
    for (const type of ["pairing.approve", "pairing.deny", "pairing.revoke"]) {
      gateway.handlers.set(type, (payload) => ({ ok: true, result: { pairing: { ...pairingFor("dev_n"), via: type, payload } } }))
    }
    const client = makeClient(gateway)
    await client.connect()
    const allowlist = [{ id: "demo.echo", version: "1.0.0" }]
    const approved = await client.approvePairing({ pairing_id: 7, trust_level: "local", capability_allowlist: allowlist })
    expect(approved.pairing).toMatchObject({ pairing_id: 7, via: "pairing.approve", payload: { pairing_id: 7, trust_level: "local", capability_allowlist: allowlist } })
    expect((await client.denyPairing({ pairing_id: 8, reason: "unknown" })).pairing).toMatchObject({ via: "pairing.deny", payload: { pairing_id: 8, reason: "unknown" } })
    expect((await client.revokePairing({ pairing_id: 7 })).pairing).toMatchObject({ via: "pairing.revoke", payload: { pairing_id: 7 } })
    expect(gateway.peers[0]!.received.map((m) => m["type"])).toEqual(["pairing.approve", "pairing.deny", "pairing.revoke"])
  })
})
