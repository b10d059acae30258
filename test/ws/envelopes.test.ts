/**
 * Envelopes, dispatch and authorization after the handshake (gateway-api.md
 * "WebSocket API" message table, rule 6; reference §5.3).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, makeIdentity, openPeer } from "../support/wsPeer.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 10_000, wsMaxMessageBytes: 4096 })
})
afterAll(() => gw.close())

const deviceToken = async (role: "client" | "node", scopes: ReadonlyArray<string>) => {
  const identity = makeIdentity()
  const res = await postJson(gw, "/auth/device-tokens/issue", { device_id: identity.deviceId, role, scopes }, gw.adminToken)
  return { identity, token: (await readJson(res)).token as string }
}

describe("envelopes", () => {
  it("answers the JSON ping with ok:true", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    expect(await peer.request("ping", {})).toMatchObject({ type: "ping", ok: true })
    peer.ws.close()
  })

  it("answers unknown types with ok:false unsupported_request", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const res = await peer.request("no.such.type", {})
    expect(res.ok).toBe(false)
    expect(res.error.code).toBe("unsupported_request")
    peer.ws.close()
  })

  it("rejects client events, invalid JSON and unknown shapes with error events and stays open", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    peer.send({ event_id: "e1", type: "x", occurred_at: new Date().toISOString(), payload: {} })
    expect((await peer.next((m) => m.type === "error")).payload.code).toBe("unexpected_event")
    peer.send("{not json")
    expect((await peer.next((m) => m.type === "error")).payload.code).toBe("invalid_json")
    peer.send("[1,2]")
    expect((await peer.next((m) => m.type === "error")).payload.code).toBe("invalid_message")
    peer.send({ type: "ping" })
    expect((await peer.next((m) => m.type === "error")).payload.code).toBe("invalid_message")
    expect(await peer.request("ping")).toMatchObject({ ok: true })
    peer.ws.close()
  })

  it("reports invalid payloads as invalid_request naming the field", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const res = await peer.request("presence.beacon", { mode: "spaceship" })
    expect(res.ok).toBe(false)
    expect(res.error.code).toBe("invalid_request")
    expect(res.error.message).toMatch(/mode/)
    peer.ws.close()
  })

  it("closes with 1009 when a message exceeds the size limit", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    peer.send({ request_id: "big", type: "ping", payload: { pad: "x".repeat(8000) } })
    expect((await peer.closed).code).toBe(1009)
  })

  it("runs requests concurrently and correlates responses by request_id", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const results = await Promise.all(Array.from({ length: 50 }, () => peer.request("ping")))
    expect(results.every((r) => r.ok)).toBe(true)
    expect(new Set(results.map((r) => r.request_id)).size).toBe(50)
    peer.ws.close()
  })
})

describe("device-token scopes over WebSocket", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string, string]> = [
    ["ping needs no scope", [], "ping", "ok"],
    ["presence.beacon needs no scope", [], "presence.beacon", "ok"],
    ["approval.list needs operator.approvals", ["operator.read"], "approval.list", "forbidden"],
    ["approval.list passes with operator.approvals", ["operator.approvals"], "approval.list", "ok"],
    ["memory.search needs operator.read", ["operator.write"], "memory.search", "forbidden"],
    ["memory.search passes with operator.read", ["operator.read"], "memory.search", "invalid_request"],
    ["subagent.list passes with operator.read", ["operator.read"], "subagent.list", "invalid_request"],
    ["memory.create needs operator.write", ["operator.read"], "memory.create", "forbidden"],
    ["command.execute needs operator.admin", ["operator.write", "operator.read"], "command.execute", "forbidden"],
    ["pairing.approve needs operator.pairing", ["operator.admin"], "pairing.approve", "forbidden"],
    ["types outside the table are denied", ["operator.admin", "operator.read", "operator.write"], "no.such.type", "forbidden"]
  ]
  it.each(cases)("%s", async (_name, scopes, type, expected) => {
    const { identity, token } = await deviceToken("client", scopes)
    const { peer } = await connectPeer(gw.url, token, { identity })
    const res = await peer.request(type, {})
    if (expected === "ok") expect(res.ok).toBe(true)
    else expect(res.error.code).toBe(expected)
    peer.ws.close()
  })

  it("the admin token bypasses scopes but not roles", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    expect((await peer.request("command.execute", { command: "/help" })).error.code).toBe("unsupported_request")
    expect((await peer.request("capability.ready", { capabilities: [] })).error.code).toBe("unauthorized")
    peer.ws.close()
  })
})

describe("capabilities, presence and connections", () => {
  it("broadcasts capability.ready with the advertised ∩ declared set, and lists connections", async () => {
    const operator = await connectPeer(gw.url, gw.adminToken)
    const { identity, token } = await deviceToken("node", [])
    const node = await connectPeer(gw.url, token, {
      role: "node",
      identity,
      capabilities: [{ id: "cli.exec", version: "1.0.0" }, { id: "desktop.screenshot" }]
    })
    const ready = await node.peer.request("capability.ready", { capabilities: [{ id: "cli.exec" }, { id: "not.advertised" }] })
    expect(ready.ok).toBe(true)
    const event = await operator.peer.next((m) => m.type === "capability.ready")
    expect(event.payload.node_id).toBe(identity.deviceId)
    expect(event.payload.capabilities.map((c: { id: string }) => c.id)).toEqual(["cli.exec"])
    expect(event.event_id).toBeTypeOf("string")
    expect(event.occurred_at).toMatch(/Z$/)

    const res = await gw.fetch("/connections", { headers: { authorization: `Bearer ${gw.adminToken}` } })
    const body = await readJson(res)
    const summary = body.connections.find((c: { device_id: string }) => c.device_id === identity.deviceId)
    expect(summary).toMatchObject({ role: "node", ready_capabilities: ["cli.exec"], token_kind: "device" })
    expect(body.by_role.node).toBeGreaterThanOrEqual(1)
    expect(JSON.stringify(body)).not.toContain(token)
    expect(JSON.stringify(body)).not.toContain(gw.adminToken)
    operator.peer.ws.close()
    node.peer.ws.close()
  })

  it("upserts presence on beacon, emits presence.upserted, and serves GET /presence", async () => {
    const operator = await connectPeer(gw.url, gw.adminToken)
    const { peer, identity } = await connectPeer(gw.url, gw.adminToken)
    const res = await peer.request("presence.beacon", { host: "laptop", mode: "cli", last_input_seconds: 3 })
    expect(res.result.entry).toMatchObject({ instance_id: identity.deviceId, host: "laptop", mode: "cli", reason: "periodic" })
    const event = await operator.peer.next((m) => m.type === "presence.upserted" && m.payload.entry.instance_id === identity.deviceId && m.payload.entry.reason === "periodic")
    expect(event.payload.entry.host).toBe("laptop")
    const presence = await readJson(await gw.fetch("/presence", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    expect(presence.status).toBe("ok")
    expect(presence.entries[0]).toMatchObject({ role: "gateway", reason: "self" })
    expect(presence.entries.some((e: { instance_id: string }) => e.instance_id === identity.deviceId)).toBe(true)
    operator.peer.ws.close()
    peer.ws.close()
  })

  it("does not deliver operator events to peers without operator.read", async () => {
    const { identity, token } = await deviceToken("client", [])
    const blind = await connectPeer(gw.url, token, { identity })
    const other = await connectPeer(gw.url, gw.adminToken)
    await other.peer.request("presence.beacon", { host: "x" })
    await expect(blind.peer.next((m) => m.type === "presence.upserted", 300)).rejects.toThrow(/timed out/)
    blind.peer.ws.close()
    other.peer.ws.close()
  })

  it("refuses a second handshake on an established connection", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const res = await peer.request("connect.init", {})
    expect(res.error.code).toBe("invalid_state")
    peer.ws.close()
  })

  it("is reachable through a raw open without a handshake only for the handshake", async () => {
    const peer = await openPeer(gw.url, gw.adminToken)
    peer.send({ request_id: "x", type: "presence.beacon", payload: {} })
    expect((await peer.closed).code).toBe(4003)
  })
})
