/**
 * The work board over WebSocket on a real gateway (issue 24 §2): a work item
 * moved through the board, the refusals with `error.details`
 * (`invalid_transition`, `wip_limit_exceeded`), racing clients for the last
 * doing slot (exactly one wins), bad payloads answered `invalid_request`,
 * events to operator readers, and the scopes device tokens need.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, makeIdentity } from "../support/wsPeer.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 10_000 })
})
afterAll(() => gw.close())

/** A fresh scope per test. */
const freshScope = () => ({ tenant_id: "t1", agent_id: "default", workspace_id: `ws-${Math.random().toString(36).slice(2)}` })

const connectDevice = async (scopes: ReadonlyArray<string>) => {
  const identity = makeIdentity()
  const res = await postJson(gw, "/auth/device-tokens/issue", { device_id: identity.deviceId, role: "client", scopes }, gw.adminToken)
  return connectPeer(gw.url, (await readJson(res)).token as string, { identity })
}

describe("work.* over WebSocket", () => {
  it("moves an item through the board; refusals carry their details; events reach readers", async () => {
    const scope = freshScope()
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const { peer: reader } = await connectDevice(["operator.read"])
    const created = await peer.request("work.create", { ...scope, item: { kind: "action", title: "Rotate key" } })
    expect(created.ok).toBe(true)
    const item = created.result.item
    expect(item).toMatchObject({ ...scope, status: "backlog", title: "Rotate key" })
    await reader.next((m: any) => m?.type === "work.item.created" && m.payload?.item?.work_item_id === item.work_item_id)

    const refused = await peer.request("work.transition", { ...scope, work_item_id: item.work_item_id, status: "done" })
    expect(refused).toMatchObject({
      ok: false,
      error: { code: "invalid_transition", details: { code: "invalid_transition", from: "backlog", to: "done", allowed: ["ready"] } }
    })
    for (const status of ["ready", "doing", "done"]) {
      const moved = await peer.request("work.transition", { ...scope, work_item_id: item.work_item_id, status })
      expect(moved.result.item.status).toBe(status)
    }
    await reader.next((m: any) => m?.type === "work.item.completed" && m.payload?.item?.work_item_id === item.work_item_id)

    const bad = await peer.request("work.create", { ...scope, item: { kind: "epic", title: "" } })
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid_request" } })
    const missing = await peer.request("work.get", { ...scope, work_item_id: "00000000-0000-4000-8000-000000000000" })
    expect(missing).toMatchObject({ ok: false, error: { code: "not_found", message: "work item not found" } })
    const kv = await peer.request("work.state_kv.get", { ...scope, scope: { kind: "agent" }, key: "absent" })
    expect(kv).toMatchObject({ ok: true, result: { entry: null } })
    peer.ws.close()
    reader.ws.close()
  })

  it("racing clients for the last doing slot: exactly one wins, the others get wip_limit_exceeded", async () => {
    const scope = freshScope()
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const make = async (title: string) => {
      const id = (await peer.request("work.create", { ...scope, item: { kind: "action", title } })).result.item.work_item_id as string
      await peer.request("work.transition", { ...scope, work_item_id: id, status: "ready" })
      return id
    }
    const holder = await make("holder")
    await peer.request("work.transition", { ...scope, work_item_id: holder, status: "doing" })
    const ids = await Promise.all(Array.from({ length: 8 }, (_, i) => make(`racer ${i}`)))
    const clients = await Promise.all(ids.map(() => connectPeer(gw.url, gw.adminToken)))
    const answers = await Promise.all(ids.map((id, i) => clients[i].peer.request("work.transition", { ...scope, work_item_id: id, status: "doing" })))
    expect(answers.filter((a: any) => a.ok)).toHaveLength(1)
    for (const a of answers.filter((a: any) => !a.ok)) {
      expect(a.error).toMatchObject({ code: "wip_limit_exceeded", details: { code: "wip_limit_exceeded", from: "ready", to: "doing", limit: 2, current: 2 } })
    }
    for (const c of clients) c.peer.ws.close()
    peer.ws.close()
  })

  it("reads need operator.read, writes operator.write", async () => {
    const scope = freshScope()
    const { peer: reader } = await connectDevice(["operator.read"])
    expect(await reader.request("work.list", scope)).toMatchObject({ ok: true, result: { items: [] } })
    expect(await reader.request("work.create", { ...scope, item: { kind: "action", title: "x" } })).toMatchObject({ ok: false, error: { code: "forbidden" } })
    reader.ws.close()
  })
})
