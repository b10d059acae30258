/**
 * Subagents over WebSocket on a real gateway with the built-in echo model
 * (issue 25 §3; reference §5.3 `subagent.*`; docs/agent.md "Subagents"):
 * spawn (descriptor, session key, lane, `subagent.spawned` scoped to the
 * key), list (statuses, pages), get (`not_found`, other scopes), send
 * (`{accepted: true}` at once, then `subagent.output` with the echoed
 * content, messages answered in order), close (`closing` then `closed`,
 * again a no-op; sending to it `invalid_state`), a failing turn (the
 * subagent `failed` with `subagent.updated`), the scopes a device token
 * needs (events to operator readers), and every type `unsupported_request`
 * without SVC_AGENT_ENABLED.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { AgentRuntime } from "../../services/agent/AgentRuntime.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, makeIdentity } from "../support/wsPeer.ts"

const scope = { tenant_id: "t1", agent_id: "helper", workspace_id: "ws-sub" }
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

let gw: TestGateway
let off: TestGateway
beforeAll(async () => {
  gw = await startGateway({ agentEnabled: true })
  off = await startGateway()
})
afterAll(async () => {
  await gw.close()
  await off.close()
})

type Peer = Awaited<ReturnType<typeof connectPeer>>["peer"]

/** The result of `type` (which must succeed). */
const ok = async (peer: Peer, type: string, payload: unknown) => {
  const res = await peer.request(type, payload)
  if (res.ok !== true) throw new Error(`${type}: ${JSON.stringify(res.error)}`)
  return res.result
}

/** The next event of `type` about subagent `id`. */
const event = (peer: Peer, type: string, id: string) =>
  peer.next((m: any) => m?.type === type && "event_id" in m && (m.payload?.subagent?.subagent_id ?? m.payload?.subagent_id) === id)

describe("subagent.*", () => {
  it("spawns, lists, gets, and answers a message asynchronously with subagent.output", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const { subagent } = await ok(peer, "subagent.spawn", { ...scope, execution_profile: "research", work_item_id: "w-1" })
    expect(subagent).toMatchObject({
      ...scope,
      execution_profile: "research",
      work_item_id: "w-1",
      lane: "subagent",
      status: "running"
    })
    expect(subagent.subagent_id).toMatch(UUID)
    expect(subagent.session_key).toBe(`agent:helper:subagent:${subagent.subagent_id}`)
    expect(subagent).not.toHaveProperty("closed_at")
    const spawned = await event(peer, "subagent.spawned", subagent.subagent_id)
    expect(spawned.payload.subagent).toEqual(subagent)
    expect(spawned.scope).toEqual({ kind: "key", key: subagent.session_key, lane: "subagent" })

    expect((await ok(peer, "subagent.get", { ...scope, subagent_id: subagent.subagent_id })).subagent).toEqual(subagent)
    const missing = await peer.request("subagent.get", { ...scope, subagent_id: crypto.randomUUID() })
    expect(missing).toMatchObject({ ok: false, error: { code: "not_found", message: "subagent not found" } })
    const elsewhere = await peer.request("subagent.get", { ...scope, workspace_id: "other", subagent_id: subagent.subagent_id })
    expect(elsewhere).toMatchObject({ ok: false, error: { code: "not_found" } })

    const sent = await peer.request("subagent.send", { ...scope, subagent_id: subagent.subagent_id, content: "Find the open incidents" })
    expect(sent).toMatchObject({ ok: true, result: { accepted: true } })
    const output = await event(peer, "subagent.output", subagent.subagent_id)
    expect(output.payload).toEqual({
      subagent_id: subagent.subagent_id,
      ...scope,
      session_key: subagent.session_key,
      lane: "subagent",
      message_id: expect.any(Number),
      kind: "final",
      content: "Find the open incidents"
    })
    expect(output.scope).toEqual({ kind: "key", key: subagent.session_key, lane: "subagent" })
    // The turn ran in the subagent's own session: channel "subagent", thread = the subagent id.
    const session = await gw.run(Effect.flatMap(Effect.service(AgentRuntime), (runtime) =>
      runtime.sessionFor({ agentId: "helper", channel: "subagent", threadId: subagent.subagent_id })))
    const reports = await gw.run(Effect.flatMap(Effect.service(AgentRuntime), (runtime) => runtime.listReports({ session_id: session.session_id })))
    expect(reports).toHaveLength(1)
    const after = (await ok(peer, "subagent.get", { ...scope, subagent_id: subagent.subagent_id })).subagent
    expect(typeof after.last_heartbeat_at).toBe("string")
    peer.ws.close()
  })

  it("answers a subagent's messages in the order they were sent", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const { subagent } = await ok(peer, "subagent.spawn", { ...scope, execution_profile: "ordered" })
    const contents = ["first", "second", "third"]
    const accepted = await Promise.all(contents.map((content) => peer.request("subagent.send", { ...scope, subagent_id: subagent.subagent_id, content })))
    expect(accepted.every((r) => r.ok === true && r.result.accepted === true)).toBe(true)
    const outputs = []
    for (let i = 0; i < contents.length; i++) outputs.push((await event(peer, "subagent.output", subagent.subagent_id)).payload)
    expect(outputs.map((o) => o.content)).toEqual(contents)
    expect(outputs.map((o) => o.message_id)).toEqual([...outputs.map((o) => o.message_id)].sort((a, b) => a - b))
    peer.ws.close()
  })

  it("lists the scope's subagents by statuses, in pages", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const listScope = { ...scope, workspace_id: "ws-list" }
    const ids: Array<string> = []
    for (let i = 0; i < 3; i++) ids.push((await ok(peer, "subagent.spawn", { ...listScope, execution_profile: `p${i}` })).subagent.subagent_id)
    await ok(peer, "subagent.close", { ...listScope, subagent_id: ids[1] })

    const all = await ok(peer, "subagent.list", listScope)
    expect(all.subagents.map((s: any) => s.subagent_id).sort()).toEqual([...ids].sort())
    expect(all.next_cursor).toBeUndefined()
    const running = await ok(peer, "subagent.list", { ...listScope, statuses: ["running"] })
    expect(running.subagents.map((s: any) => s.subagent_id).sort()).toEqual([ids[0], ids[2]].sort())
    const closed = await ok(peer, "subagent.list", { ...listScope, statuses: ["closed", "failed"] })
    expect(closed.subagents.map((s: any) => s.subagent_id)).toEqual([ids[1]])

    const page1 = await ok(peer, "subagent.list", { ...listScope, limit: 2 })
    expect(page1.subagents).toHaveLength(2)
    const page2 = await ok(peer, "subagent.list", { ...listScope, limit: 2, cursor: page1.next_cursor })
    expect(page2.subagents).toHaveLength(1)
    expect(page2.next_cursor).toBeUndefined()
    expect([...page1.subagents, ...page2.subagents].map((s: any) => s.subagent_id)).toEqual(all.subagents.map((s: any) => s.subagent_id))

    expect(await peer.request("subagent.list", { ...listScope, cursor: "not-a-cursor!" })).toMatchObject({
      ok: false,
      error: { code: "invalid_request", message: "invalid cursor" }
    })
    expect((await ok(peer, "subagent.list", { ...listScope, workspace_id: "nobody" })).subagents).toEqual([])
    const bad = await peer.request("subagent.spawn", { ...listScope, agent_id: "../etc", execution_profile: "x" })
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid_request" } })
    peer.ws.close()
  })

  it("closes a subagent: closing, then closed; closing it again is a no-op; it accepts no more messages", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const { subagent } = await ok(peer, "subagent.spawn", { ...scope, execution_profile: "closer" })
    await event(peer, "subagent.spawned", subagent.subagent_id)
    const { subagent: closed } = await ok(peer, "subagent.close", { ...scope, subagent_id: subagent.subagent_id, reason: "done" })
    expect(closed).toMatchObject({ subagent_id: subagent.subagent_id, status: "closed" })
    expect(typeof closed.closed_at).toBe("string")
    expect(typeof closed.updated_at).toBe("string")
    const closing = await event(peer, "subagent.updated", subagent.subagent_id)
    expect(closing.payload.subagent.status).toBe("closing")
    const closedEvent = await event(peer, "subagent.closed", subagent.subagent_id)
    expect(closedEvent.payload.subagent).toEqual(closed)

    const again = await ok(peer, "subagent.close", { ...scope, subagent_id: subagent.subagent_id })
    expect(again.subagent).toEqual(closed)
    const refused = await peer.request("subagent.send", { ...scope, subagent_id: subagent.subagent_id, content: "hello?" })
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid_state", message: "subagent is closed: only a running subagent accepts messages" } })
    // No second closing/closed event: the next subagent's spawn is the next event this peer sees about subagents.
    const { subagent: marker } = await ok(peer, "subagent.spawn", { ...scope, execution_profile: "marker" })
    const nextEvent = await peer.next((m: any) => typeof m?.type === "string" && m.type.startsWith("subagent.") && "event_id" in m)
    expect(nextEvent).toMatchObject({ type: "subagent.spawned", payload: { subagent: { subagent_id: marker.subagent_id } } })
    peer.ws.close()
  })

  it("marks the subagent failed with subagent.updated when its turn fails; closing it then is a no-op", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const { subagent } = await ok(peer, "subagent.spawn", { ...scope, execution_profile: "doomed" })
    // The subagent's session uses a provider without a credential (no auth profile for openai).
    await gw.run(Effect.gen(function*() {
      const runtime = yield* AgentRuntime
      const session = yield* runtime.sessionFor({ agentId: scope.agent_id, channel: "subagent", threadId: subagent.subagent_id, workspaceId: scope.workspace_id })
      yield* runtime.setSessionModel(session.session_id, "openai/x")
    }))
    expect(await peer.request("subagent.send", { ...scope, subagent_id: subagent.subagent_id, content: "go" })).toMatchObject({ ok: true, result: { accepted: true } })
    const updated = await event(peer, "subagent.updated", subagent.subagent_id)
    expect(updated.payload.subagent).toMatchObject({ subagent_id: subagent.subagent_id, status: "failed" })
    expect(updated.payload.error).toMatch(/^openai: no credential for openai\/x/)
    expect((await ok(peer, "subagent.get", { ...scope, subagent_id: subagent.subagent_id })).subagent.status).toBe("failed")
    const closed = await ok(peer, "subagent.close", { ...scope, subagent_id: subagent.subagent_id })
    expect(closed.subagent).toEqual(updated.payload.subagent)
    peer.ws.close()
  })

  it("needs operator.read for list and get, operator.write for spawn, send and close; events reach readers", async () => {
    const identity = makeIdentity()
    const issued = await postJson(gw, "/auth/device-tokens/issue", { device_id: identity.deviceId, role: "client", scopes: ["operator.read"] }, gw.adminToken)
    const { peer: reader } = await connectPeer(gw.url, (await readJson(issued)).token, { identity })
    const { peer: admin } = await connectPeer(gw.url, gw.adminToken)
    const { subagent } = await ok(admin, "subagent.spawn", { ...scope, execution_profile: "scoped" })
    expect((await event(reader, "subagent.spawned", subagent.subagent_id)).payload.subagent).toEqual(subagent)
    expect((await ok(reader, "subagent.get", { ...scope, subagent_id: subagent.subagent_id })).subagent).toEqual(subagent)
    expect((await ok(reader, "subagent.list", scope)).subagents.length).toBeGreaterThan(0)
    for (const [type, payload] of [
      ["subagent.spawn", { execution_profile: "x" }],
      ["subagent.send", { subagent_id: subagent.subagent_id, content: "hi" }],
      ["subagent.close", { subagent_id: subagent.subagent_id }]
    ] as const) {
      expect(await reader.request(type, { ...scope, ...payload })).toMatchObject({ ok: false, error: { code: "forbidden", message: `insufficient scope: ${type} requires operator.write` } })
    }
    reader.ws.close()
    admin.ws.close()
  })

  it("is off without SVC_AGENT_ENABLED: every subagent type answers unsupported_request", async () => {
    const { peer } = await connectPeer(off.url, off.adminToken)
    const id = crypto.randomUUID()
    const requests: ReadonlyArray<readonly [string, object]> = [
      ["subagent.spawn", { execution_profile: "x" }],
      ["subagent.list", {}],
      ["subagent.get", { subagent_id: id }],
      ["subagent.send", { subagent_id: id, content: "hi" }],
      ["subagent.close", { subagent_id: id }]
    ]
    for (const [type, payload] of requests) {
      const res = await peer.request(type, { ...scope, ...payload })
      expect(res).toMatchObject({ ok: false, error: { code: "unsupported_request", message: expect.stringContaining(type) } })
    }
    peer.ws.close()
  })
})
