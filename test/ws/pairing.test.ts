/**
 * Node pairing end to end with real `ws` clients against a real server
 * (gateway-api.md "Pairing (node enrollment)", message table; docs/pairing.md):
 * a node connects → pending → approved over HTTP and over WS → the scoped
 * token reaches only that node → it reconnects with the token over each
 * credential transport and may send only a node's requests; 4008 on a
 * mismatched device or a client role; a revoked node is disconnected and
 * refused; deny and re-request; concurrent approvals; restart keeps the
 * pairing and the token (file SQLite shared by two gateways).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { storageLayer } from "../../layers/storage/Storage.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, handshake, makeIdentity, openPeer, type TestIdentity, type TestPeer, type Transport } from "../support/wsPeer.ts"

let gw: TestGateway
let operator: TestPeer
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 10_000 })
  operator = (await connectPeer(gw.url, gw.adminToken)).peer
})
afterAll(async () => {
  operator.ws.close()
  await gw.close()
})

const TERMS = { trust_level: "remote", capability_allowlist: [{ id: "cli.exec", version: "1.0.0" }] }
const CAPABILITIES = [{ id: "cli.exec", version: "1.0.0" }]

const deviceToken = async (on: TestGateway, scopes: ReadonlyArray<string>, role: "client" | "node" = "client", identity: TestIdentity = makeIdentity()) => {
  const res = await postJson(on, "/auth/device-tokens/issue", { device_id: identity.deviceId, role, scopes, persistent: true }, on.adminToken)
  return { identity, token: (await readJson(res)).token as string }
}

const isEvent = (type: string, nodeId: string) => (m: any) =>
  m?.type === type && "event_id" in m && m.payload?.pairing?.node?.node_id === nodeId

/** Nothing matching `predicate` has reached `peer` by the time a ping round-trip (sent now) completes. */
const nothingYet = async (peer: TestPeer, predicate: (m: any) => boolean) => {
  expect((await peer.request("ping")).ok).toBe(true)
  await expect(peer.next(predicate, 1)).rejects.toThrow(/timed out/)
}

/** A node connects with a bootstrap credential (a node device token); resolves with its pending pairing. */
const bootstrapNode = async (on: TestGateway = gw, watcher: TestPeer = operator, identity: TestIdentity = makeIdentity()) => {
  const { token } = await deviceToken(on, [], "node", identity)
  const { peer } = await connectPeer(on.url, token, { role: "node", identity, capabilities: CAPABILITIES })
  const requested = await watcher.next(isEvent("pairing.requested", identity.deviceId))
  return { identity, bootstrap: token, peer, pairing: requested.payload.pairing }
}

/** Sends `connect.init` without waiting for an answer (a refused init gets none: the socket closes). */
const sendInit = (peer: TestPeer, identity: TestIdentity, role: "client" | "node") =>
  peer.send({
    request_id: "init",
    type: "connect.init",
    payload: { protocol_rev: 2, role, device: { device_id: identity.deviceId, pubkey: identity.pubkey } }
  })

const approveOverHttp = async (pairingId: number, on: TestGateway = gw) =>
  readJson(await postJson(on, `/pairings/${pairingId}/approve`, TERMS, on.adminToken))

describe("a node pairing end to end", () => {
  it("connect → pending → approve over HTTP → the token reaches only that node → it reconnects with it on every transport", async () => {
    const pairer = await deviceToken(gw, ["operator.pairing"])
    const watcher = (await connectPeer(gw.url, pairer.token, { identity: pairer.identity })).peer
    const reader = (await deviceToken(gw, ["operator.read", "operator.approvals"]))
    const readerPeer = (await connectPeer(gw.url, reader.token, { identity: reader.identity })).peer
    const bystander = await connectPeer(gw.url, gw.adminToken, { role: "node" })

    const node = await bootstrapNode(gw, watcher)
    expect(node.pairing).toMatchObject({
      status: "pending",
      trust_level: null,
      node: { node_id: node.identity.deviceId, label: "test", capabilities: CAPABILITIES },
      capability_allowlist: [],
      resolution: null
    })
    await operator.next(isEvent("pairing.requested", node.identity.deviceId)) // the admin token sees it too
    await nothingYet(readerPeer, (m) => typeof m?.type === "string" && m.type.startsWith("pairing."))

    const approved = await approveOverHttp(node.pairing.pairing_id)
    expect(approved.pairing.status).toBe("approved")
    const delivered = await node.peer.next((m) => m?.type === "pairing.approved")
    expect(delivered).toMatchObject({
      event_id: expect.any(String),
      occurred_at: expect.any(String),
      payload: { pairing: approved.pairing },
      scope: { kind: "node", node_id: node.identity.deviceId }
    })
    const token: string = delivered.payload.scoped_token
    expect(token).toMatch(/^svc-node\.v1\./)
    const resolved = await watcher.next(isEvent("pairing.resolved", node.identity.deviceId))
    expect(resolved.payload).toEqual({ pairing: approved.pairing })
    for (const peer of [watcher, operator, readerPeer, bystander.peer]) {
      await nothingYet(peer, (m) => m?.type === "pairing.approved" || JSON.stringify(m).includes(token))
    }

    // Reconnect with the scoped token, through each credential transport.
    node.peer.ws.close()
    for (const transport of ["bearer", "subprotocol", "cookie"] as const satisfies ReadonlyArray<Transport>) {
      const peer = await openPeer(gw.url, token, transport)
      const proof = await handshake(peer, node.identity, "node", CAPABILITIES)
      expect(proof, transport).toMatchObject({ device_id: node.identity.deviceId, role: "node" })
      expect((await peer.request("ping")).ok).toBe(true)
      expect((await peer.request("presence.beacon", { host: "lab-4" })).ok).toBe(true)
      expect((await peer.request("capability.ready", { capabilities: CAPABILITIES })).ok).toBe(true)
      for (const [type, payload] of [
        ["approval.list", {}],
        ["pairing.approve", { pairing_id: node.pairing.pairing_id, ...TERMS }],
        ["pairing.revoke", { pairing_id: node.pairing.pairing_id }],
        ["memory.search", { query: "x" }],
        ["no.such.type", {}]
      ] as const) {
        const res = await peer.request(type, payload)
        expect(res.ok, `${transport} ${type}`).toBe(false)
        expect(res.error).toEqual({ code: "forbidden", message: `${type} is not allowed with a scoped node token` })
      }
      const connections = await readJson(await gw.fetch("/connections", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
      const mine = connections.connections.filter((c: any) => c.device_id === node.identity.deviceId)
      expect(mine).toEqual([expect.objectContaining({ role: "node", token_kind: "node", scopes: [] })])
      peer.ws.close()
      await peer.closed
    }
    // The pairing is still approved (reconnects refresh it).
    const listed = (await readJson(await gw.fetch("/pairings?status=approved", { headers: { authorization: `Bearer ${gw.adminToken}` } }))).pairings
    expect(listed.find((p: any) => p.pairing_id === node.pairing.pairing_id)).toMatchObject({ status: "approved", trust_level: "remote" })
    for (const peer of [watcher, readerPeer, bystander.peer]) peer.ws.close()
  })

  it("approve over WS: pairing.approve → {pairing}; validation and 404 as not_found; scopes and roles enforced", async () => {
    const pairer = await deviceToken(gw, ["operator.pairing"])
    const client = (await connectPeer(gw.url, pairer.token, { identity: pairer.identity })).peer
    const node = await bootstrapNode(gw, client)
    const id = node.pairing.pairing_id

    for (const [payload, message] of [
      [{ pairing_id: id, capability_allowlist: [] }, /^trust_level: missing required field/],
      [{ pairing_id: id, trust_level: "remote" }, /^capability_allowlist: missing required field/],
      [{ pairing_id: id, trust_level: "x", capability_allowlist: [] }, /^trust_level: expected one of local, remote/],
      [{ pairing_id: "7", ...TERMS }, /^pairing_id: /]
    ] as const) {
      const res = await client.request("pairing.approve", payload)
      expect(res.error.code, JSON.stringify(payload)).toBe("invalid_request")
      expect(res.error.message).toMatch(message)
    }
    const res = await client.request("pairing.approve", { pairing_id: id, ...TERMS, reason: "ws" })
    expect(res.ok).toBe(true)
    expect(res.result.pairing).toMatchObject({
      pairing_id: id,
      status: "approved",
      resolution: { decision: "approved", reason: "ws", resolved_by: { kind: "ws", principal: pairer.identity.deviceId } }
    })
    expect(JSON.stringify(res)).not.toContain("svc-node.v1.")
    const delivered = await node.peer.next((m) => m?.type === "pairing.approved")
    expect(delivered.payload.pairing).toEqual(res.result.pairing)
    expect(await client.request("pairing.approve", { pairing_id: id, ...TERMS })).toMatchObject({
      ok: false,
      error: { code: "not_found", message: `pairing ${id} not found or not pending` }
    })
    expect((await client.request("pairing.deny", { pairing_id: id })).error.code).toBe("not_found")

    const reader = await deviceToken(gw, ["operator.read"])
    const readerPeer = (await connectPeer(gw.url, reader.token, { identity: reader.identity })).peer
    expect((await readerPeer.request("pairing.revoke", { pairing_id: id })).error).toEqual({
      code: "forbidden",
      message: "insufficient scope: pairing.revoke requires operator.pairing"
    })
    const adminNode = await connectPeer(gw.url, gw.adminToken, { role: "node" })
    expect((await adminNode.peer.request("pairing.revoke", { pairing_id: id })).error.code).toBe("unauthorized")

    const revoked = await client.request("pairing.revoke", { pairing_id: id, reason: "ws revoke" })
    expect(revoked.result.pairing).toMatchObject({ status: "revoked", resolution: { decision: "revoked", reason: "ws revoke" } })
    expect(await node.peer.closed).toEqual({ code: 4001, reason: "pairing revoked" })
    for (const peer of [client, readerPeer, adminNode.peer]) peer.ws.close()
  })

  it("HTTP and WS approving the same pairing at once: exactly one winner, one token", async () => {
    for (let round = 0; round < 4; round++) {
      const node = await bootstrapNode()
      const id = node.pairing.pairing_id
      const [http, ws] = await Promise.all([
        postJson(gw, `/pairings/${id}/approve`, TERMS, gw.adminToken),
        operator.request("pairing.approve", { pairing_id: id, ...TERMS })
      ])
      const wins = [http.status === 200, ws.ok === true].filter(Boolean)
      expect(wins).toHaveLength(1)
      if (http.status !== 200) expect(http.status).toBe(404)
      if (!ws.ok) expect(ws.error.code).toBe("not_found")
      await node.peer.next((m) => m?.type === "pairing.approved")
      await nothingYet(node.peer, (m) => m?.type === "pairing.approved")
      await operator.next(isEvent("pairing.resolved", node.identity.deviceId))
      node.peer.ws.close()
    }
  })
})

describe("scoped token refusals", () => {
  it("closes 4008 `scoped token mismatch` for another device, and for a client role", async () => {
    const node = await bootstrapNode()
    await approveOverHttp(node.pairing.pairing_id)
    const token = (await node.peer.next((m) => m?.type === "pairing.approved")).payload.scoped_token
    node.peer.ws.close()

    const impostor = await openPeer(gw.url, token)
    sendInit(impostor, makeIdentity(), "node")
    expect(await impostor.closed).toEqual({ code: 4008, reason: "scoped token mismatch" })

    const asClient = await openPeer(gw.url, token, "subprotocol")
    sendInit(asClient, node.identity, "client")
    expect(await asClient.closed).toEqual({ code: 4008, reason: "scoped token mismatch" })

    // The genuine node is still fine.
    const genuine = await openPeer(gw.url, token)
    expect((await handshake(genuine, node.identity, "node")).device_id).toBe(node.identity.deviceId)
    genuine.ws.close()
  })

  it("an unknown scoped token is refused at the upgrade (401) and counts against the failed-authentication limit", async () => {
    await expect(openPeer(gw.url, "svc-node.v1." + "A".repeat(43))).rejects.toMatchObject({ status: 401 })
    const limited = await startGateway({ rateLimitMax: 2 })
    try {
      for (let i = 0; i < 2; i++) await expect(openPeer(limited.url, `svc-node.v1.guess${i}`)).rejects.toMatchObject({ status: 401 })
      await expect(openPeer(limited.url, "svc-node.v1.guess2")).rejects.toMatchObject({ status: 429 })
    } finally {
      await limited.close()
    }
  })
})

describe("revocation and denial", () => {
  it("revoke closes every live connection of the node (4001) whatever its credential; the token is refused after", async () => {
    const node = await bootstrapNode()
    await approveOverHttp(node.pairing.pairing_id)
    const token = (await node.peer.next((m) => m?.type === "pairing.approved")).payload.scoped_token
    const viaToken = await openPeer(gw.url, token, "subprotocol")
    await handshake(viaToken, node.identity, "node")
    const other = await connectPeer(gw.url, gw.adminToken, { role: "node" })

    const res = await postJson(gw, `/pairings/${node.pairing.pairing_id}/revoke`, { reason: "stolen" }, gw.adminToken)
    expect(res.status).toBe(200)
    expect(await viaToken.closed).toEqual({ code: 4001, reason: "pairing revoked" })
    expect(await node.peer.closed).toEqual({ code: 4001, reason: "pairing revoked" })
    expect((await other.peer.request("ping")).ok).toBe(true) // another node is untouched
    await expect(openPeer(gw.url, token)).rejects.toMatchObject({ status: 401 })
    await expect(openPeer(gw.url, token, "subprotocol")).rejects.toMatchObject({ status: 401 })

    // It may connect again with its bootstrap credential: pending again, announced again.
    const again = await connectPeer(gw.url, node.bootstrap, { role: "node", identity: node.identity })
    const requested = await operator.next(isEvent("pairing.requested", node.identity.deviceId))
    expect(requested.payload.pairing).toMatchObject({
      pairing_id: node.pairing.pairing_id,
      status: "pending",
      trust_level: null,
      capability_allowlist: [],
      resolution: null,
      resolved_at: null
    })
    again.peer.ws.close()
    other.peer.ws.close()
  })

  it("deny closes the pending node's connection (4001); it re-requests by connecting again, and can then be approved", async () => {
    const node = await bootstrapNode()
    const denied = await operator.request("pairing.deny", { pairing_id: node.pairing.pairing_id, reason: "who is this?" })
    expect(denied.result.pairing).toMatchObject({ status: "denied", resolution: { decision: "denied", reason: "who is this?" } })
    expect(await node.peer.closed).toEqual({ code: 4001, reason: "pairing denied" })
    const resolved = await operator.next(isEvent("pairing.resolved", node.identity.deviceId))
    expect(resolved.payload.pairing.status).toBe("denied")

    const again = await connectPeer(gw.url, node.bootstrap, { role: "node", identity: node.identity })
    const requested = await operator.next(isEvent("pairing.requested", node.identity.deviceId))
    expect(requested.payload.pairing).toMatchObject({ pairing_id: node.pairing.pairing_id, status: "pending", resolution: null })
    await approveOverHttp(node.pairing.pairing_id)
    expect((await again.peer.next((m) => m?.type === "pairing.approved")).payload.scoped_token).toMatch(/^svc-node\.v1\./)
    again.peer.ws.close()
  })
})

describe("a node that was offline when approved", () => {
  it("gets a fresh scoped token when it connects on its bootstrap credential; the previous token stops working", async () => {
    const node = await bootstrapNode()
    await approveOverHttp(node.pairing.pairing_id)
    const first = (await node.peer.next((m) => m?.type === "pairing.approved")).payload.scoped_token
    node.peer.ws.close()
    await node.peer.closed

    // It lost its token (or was offline at approval): it comes back on its bootstrap credential.
    const back = await connectPeer(gw.url, node.bootstrap, { role: "node", identity: node.identity })
    const reissued = await back.peer.next((m) => m?.type === "pairing.approved")
    expect(reissued.payload.pairing).toMatchObject({ pairing_id: node.pairing.pairing_id, status: "approved" })
    const second = reissued.payload.scoped_token
    expect(second).toMatch(/^svc-node\.v1\./)
    expect(second).not.toBe(first)
    await expect(openPeer(gw.url, first)).rejects.toMatchObject({ status: 401 })
    const viaToken = await openPeer(gw.url, second)
    await handshake(viaToken, node.identity, "node")
    expect((await viaToken.request("ping")).ok).toBe(true)
    // A connection on the scoped token itself gets nothing new.
    await nothingYet(viaToken, (m) => m?.type === "pairing.approved")
    viaToken.ws.close()
    back.peer.ws.close()
  })
})

describe("restart", () => {
  it("keeps pairings and tokens: the node reconnects to a second gateway on the same database without operator action", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-pairing-restart-"))
    const storage = () => storageLayer({ kind: "sqlite", filename: join(dir, "gateway.db") })
    const identity = makeIdentity()
    let token: string
    let pairingId: number
    try {
      const first = await startGateway({ rateLimitMax: 10_000 }, storage() as Layer.Layer<any, unknown>)
      try {
        const watcher = (await connectPeer(first.url, first.adminToken)).peer
        const node = await bootstrapNode(first, watcher, identity)
        pairingId = node.pairing.pairing_id
        await approveOverHttp(pairingId, first)
        token = (await node.peer.next((m) => m?.type === "pairing.approved")).payload.scoped_token
        watcher.ws.close()
        node.peer.ws.close()
      } finally {
        await first.close()
      }

      const second = await startGateway({ rateLimitMax: 10_000 }, storage() as Layer.Layer<any, unknown>)
      try {
        const peer = await openPeer(second.url, token, "subprotocol")
        expect((await handshake(peer, identity, "node", CAPABILITIES)).device_id).toBe(identity.deviceId)
        expect((await peer.request("capability.ready", { capabilities: CAPABILITIES })).ok).toBe(true)
        const listed = (await readJson(await second.fetch("/pairings", { headers: { authorization: `Bearer ${second.adminToken}` } }))).pairings
        expect(listed).toEqual([expect.objectContaining({ pairing_id: pairingId, status: "approved", trust_level: "remote" })])
        // Revocation still works after the restart, and still disconnects.
        await postJson(second, `/pairings/${pairingId}/revoke`, {}, second.adminToken)
        expect(await peer.closed).toEqual({ code: 4001, reason: "pairing revoked" })
      } finally {
        await second.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
