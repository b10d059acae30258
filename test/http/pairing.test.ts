/**
 * Node pairing over HTTP on a real server (gateway-api.md "Pairing (node
 * enrollment)"; docs/pairing.md): list (newest first, by status; an invalid
 * status is 400), approve / deny / revoke with their validation (400 naming
 * the field), 404s and scopes; the record never carries a token; a scoped node
 * token is not an HTTP credential (401). Nodes are real `ws` peers.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, makeIdentity, type TestIdentity, type TestPeer } from "../support/wsPeer.ts"

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

const auth = (token = gw.adminToken) => ({ authorization: `Bearer ${token}` })
const get = (path: string, token?: string) => gw.fetch(path, { headers: auth(token) })
const post = (path: string, body: unknown, token = gw.adminToken) => postJson(gw, path, body, token)
const TERMS = { trust_level: "local", capability_allowlist: [{ id: "cli.exec", version: "1.0.0" }] }

const deviceToken = async (scopes: ReadonlyArray<string>, role: "client" | "node" = "client", identity: TestIdentity = makeIdentity()) => {
  const res = await postJson(gw, "/auth/device-tokens/issue", { device_id: identity.deviceId, role, scopes }, gw.adminToken)
  return { identity, token: (await readJson(res)).token as string }
}

/** A node connects (admin token as its bootstrap credential); resolves once its pairing is requested. */
const pendingNode = async () => {
  const identity = makeIdentity()
  const { peer } = await connectPeer(gw.url, gw.adminToken, { role: "node", identity, capabilities: [{ id: "cli.exec", version: "1.0.0" }] })
  const requested = await operator.next((m) => m?.type === "pairing.requested" && m.payload.pairing.node.node_id === identity.deviceId)
  return { identity, peer, pairing: requested.payload.pairing }
}

describe("GET /pairings", () => {
  it("lists pairings newest first, filtered by status; the record is the contract", async () => {
    const first = await pendingNode()
    const second = await pendingNode()
    const body = await readJson(await get("/pairings"))
    expect(body.status).toBe("ok")
    const ids = body.pairings.map((p: any) => p.pairing_id)
    expect(ids.indexOf(second.pairing.pairing_id)).toBeLessThan(ids.indexOf(first.pairing.pairing_id))
    const record = body.pairings.find((p: any) => p.pairing_id === first.pairing.pairing_id)
    expect(record).toEqual(first.pairing)
    expect(Object.keys(record).sort()).toEqual(
      ["capability_allowlist", "node", "pairing_id", "requested_at", "resolution", "resolved_at", "status", "trust_level"]
    )
    expect(record.node).toMatchObject({ node_id: first.identity.deviceId, label: "test", capabilities: [{ id: "cli.exec", version: "1.0.0" }] })
    expect(record.node.metadata).toMatchObject({ ip: expect.any(String) })
    await post(`/pairings/${second.pairing.pairing_id}/approve`, TERMS)
    const approved = (await readJson(await get("/pairings?status=approved"))).pairings
    expect(approved.map((p: any) => p.pairing_id)).toContain(second.pairing.pairing_id)
    expect(approved.every((p: any) => p.status === "approved")).toBe(true)
    const pending = (await readJson(await get("/pairings?status=pending"))).pairings
    expect(pending.map((p: any) => p.pairing_id)).toContain(first.pairing.pairing_id)
    expect(pending.map((p: any) => p.pairing_id)).not.toContain(second.pairing.pairing_id)
    expect(JSON.stringify(approved)).not.toMatch(/svc-node\.v1\.|token/)
    first.peer.ws.close()
    second.peer.ws.close()
  })

  it("refuses an invalid status with 400 naming the allowed values (not silently ignored)", async () => {
    const res = await get("/pairings?status=open")
    expect(res.status).toBe(400)
    expect(await readJson(res)).toEqual({
      error: "invalid_request",
      message: expect.stringMatching(/^status: expected one of pending, approved, denied, revoked/)
    })
  })
})

describe("POST /pairings/:id/approve|deny|revoke", () => {
  it("approve: {status, pairing} with the terms and resolved_by; never the token (it goes to the node only)", async () => {
    const node = await pendingNode()
    const device = await deviceToken(["operator.pairing"])
    const res = await post(`/pairings/${node.pairing.pairing_id}/approve`, { ...TERMS, reason: "rack 4" }, device.token)
    expect(res.status).toBe(200)
    const body = await readJson(res)
    expect(body).toEqual({
      status: "ok",
      pairing: {
        ...node.pairing,
        node: expect.objectContaining({ node_id: node.identity.deviceId }),
        status: "approved",
        trust_level: "local",
        capability_allowlist: [{ id: "cli.exec", version: "1.0.0" }],
        resolution: {
          decision: "approved",
          resolved_at: expect.any(String),
          reason: "rack 4",
          resolved_by: { kind: "http", principal: device.identity.deviceId }
        },
        resolved_at: body.pairing.resolution.resolved_at
      }
    })
    const delivered = await node.peer.next((m) => m?.type === "pairing.approved")
    expect(delivered.payload.pairing).toEqual(body.pairing)
    expect(JSON.stringify(body)).not.toContain(delivered.payload.scoped_token)
    // Not pending any more.
    const again = await post(`/pairings/${node.pairing.pairing_id}/approve`, TERMS)
    expect(again.status).toBe(404)
    expect(await readJson(again)).toEqual({ error: "not_found", message: `pairing ${node.pairing.pairing_id} not found or not pending` })
    node.peer.ws.close()
  })

  it("validates approve bodies: 400 naming the field", async () => {
    const node = await pendingNode()
    const path = `/pairings/${node.pairing.pairing_id}/approve`
    const cases: ReadonlyArray<readonly [unknown, RegExp]> = [
      [{ capability_allowlist: [] }, /^trust_level: missing required field/],
      [{ trust_level: "global", capability_allowlist: [] }, /^trust_level: expected one of local, remote/],
      [{ trust_level: "local" }, /^capability_allowlist: missing required field/],
      [{ trust_level: "local", capability_allowlist: "cli.exec" }, /^capability_allowlist: expected an array of at most 64 CapabilityDescriptor/],
      [{ trust_level: "local", capability_allowlist: Array.from({ length: 65 }, () => ({ id: "cli.exec" })) }, /^capability_allowlist: expected an array of at most 64 CapabilityDescriptor, got an array/],
      [{ trust_level: "local", capability_allowlist: [{ id: "CLI" }] }, /^capability_allowlist\[0\]\.id: expected a namespaced id like cli\.exec/],
      [{ trust_level: "local", capability_allowlist: [{ id: "cli.exec", version: "one" }] }, /^capability_allowlist\[0\]\.version: expected a semantic version/],
      [{ ...TERMS, reason: "x".repeat(2001) }, /^reason: expected at most 2000 characters/],
      ["{", /^malformed JSON/]
    ]
    for (const [body, message] of cases) {
      const res = await post(path, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      const error = await readJson(res)
      expect(error.error).toBe("invalid_request")
      expect(error.message).toMatch(message)
    }
    expect((await readJson(await get("/pairings?status=pending"))).pairings.map((p: any) => p.pairing_id)).toContain(node.pairing.pairing_id)
    for (const bad of ["abc", "0", "-1", "1.5"]) {
      for (const action of ["approve", "deny", "revoke"]) {
        const res = await post(`/pairings/${bad}/${action}`, action === "approve" ? TERMS : {})
        expect(res.status, `${bad}/${action}`).toBe(400)
        expect((await readJson(res)).message).toMatch(/^id: expected a positive integer/)
      }
    }
    node.peer.ws.close()
  })

  it("deny: pending only (else 404), closes the node's connection; revoke: any but revoked (else 404)", async () => {
    const node = await pendingNode()
    const id = node.pairing.pairing_id
    const denied = await readJson(await post(`/pairings/${id}/deny`, { reason: "unknown box" }))
    expect(denied).toMatchObject({ status: "ok", pairing: { status: "denied", trust_level: null, resolution: { decision: "denied", reason: "unknown box" } } })
    expect(await node.peer.closed).toEqual({ code: 4001, reason: "pairing denied" })
    expect(await readJson(await post(`/pairings/${id}/deny`, {}))).toEqual({ error: "not_found", message: `pairing ${id} not found or not pending` })
    const revoked = await readJson(await post(`/pairings/${id}/revoke`, {}))
    expect(revoked.pairing).toMatchObject({ status: "revoked", resolution: { decision: "revoked", resolved_by: { kind: "http", principal: "admin" } } })
    expect(revoked.pairing.resolution).not.toHaveProperty("reason")
    const twice = await post(`/pairings/${id}/revoke`, {})
    expect(twice.status).toBe(404)
    expect(await readJson(twice)).toEqual({ error: "not_found", message: `pairing ${id} not found or already revoked` })
    for (const action of ["approve", "deny", "revoke"]) {
      const res = await post(`/pairings/999999/${action}`, action === "approve" ? TERMS : {})
      expect(res.status).toBe(404)
    }
  })
})

describe("access", () => {
  it("device tokens need operator.pairing; a scoped node token is not an HTTP credential (401)", async () => {
    const reader = await deviceToken(["operator.read", "operator.approvals"])
    for (const [method, path] of [["GET", "/pairings"], ["POST", "/pairings/1/approve"], ["POST", "/pairings/1/revoke"]]) {
      const res = method === "GET" ? await get(path, reader.token) : await post(path, TERMS, reader.token)
      expect(res.status, path).toBe(403)
      expect((await readJson(res)).message).toBe("insufficient scope: this route requires operator.pairing")
    }
    const pairer = await deviceToken(["operator.pairing"])
    expect((await get("/pairings", pairer.token)).status).toBe(200)
    expect((await gw.fetch("/pairings")).status).toBe(401)

    const node = await pendingNode()
    await post(`/pairings/${node.pairing.pairing_id}/approve`, TERMS)
    const token = (await node.peer.next((m) => m?.type === "pairing.approved")).payload.scoped_token as string
    for (const path of ["/pairings", "/connections", "/openapi.json"]) {
      const res = await get(path, token)
      expect(res.status, path).toBe(401)
      expect((await readJson(res)).error).toBe("unauthorized")
    }
    node.peer.ws.close()
  })
})
