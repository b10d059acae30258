/**
 * Memory over WebSocket on a real server (gateway-api.md message table
 * `memory.*`): the new-user walk (create, search best first, forget with a
 * tombstone), `v: 1` on every result, wire errors (`invalid_request` for a
 * bad payload, a wrong confirmation and a tampered cursor, `not_found`),
 * scopes (a read-only device cannot write) and events to operator readers;
 * export over WebSocket and download over HTTP (`GET /memory/exports/:id`
 * with its headers, 400 and 404), as a new user would.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, makeIdentity } from "../support/wsPeer.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 10_000 })
})
afterAll(() => gw.close())

const connectDevice = async (scopes: ReadonlyArray<string>) => {
  const identity = makeIdentity()
  const res = await postJson(gw, "/auth/device-tokens/issue", { device_id: identity.deviceId, role: "client", scopes }, gw.adminToken)
  const token = (await readJson(res)).token as string
  return connectPeer(gw.url, token, { identity, role: "client" })
}

describe("memory.* over WebSocket", () => {
  it("creates, searches best first, lists, updates, forgets with a tombstone; readers get the events", async () => {
    const agent = `ws-${Math.random().toString(36).slice(2, 10)}`
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const { peer: reader } = await connectDevice(["operator.read"])
    const create = (item: object) => peer.request("memory.create", { v: 1, item: { agent_id: agent, ...item } })

    const body = await create({ kind: "note", title: "Weekly sync", body_md: "We mentioned the postgres migration once." })
    const title = await create({ kind: "note", title: "Postgres migration plan", body_md: "Dump, restore, verify." })
    await create({ kind: "episode", occurred_at: "2026-11-20T09:00:00Z", summary_md: "Lunch with the team" })
    expect(body.ok).toBe(true)
    expect(body.result.v).toBe(1)
    expect(body.result.item).toMatchObject({ v: 1, agent_id: agent, kind: "note", sensitivity: "private" })

    const search = await peer.request("memory.search", { v: 1, query: "postgres", filter: { agent_id: agent } })
    expect(search.ok).toBe(true)
    expect(search.result.v).toBe(1)
    expect(search.result.hits.map((h: any) => h.memory_item_id)).toEqual([title.result.item.memory_item_id, body.result.item.memory_item_id])
    expect(search.result.hits[0].score).toBeGreaterThan(search.result.hits[1].score)

    const list = await peer.request("memory.list", { filter: { agent_id: agent, kinds: ["note"] }, limit: 1 })
    expect(list.result.items).toHaveLength(1)
    expect(typeof list.result.next_cursor).toBe("string")

    const id = title.result.item.memory_item_id
    const updated = await peer.request("memory.update", { memory_item_id: id, agent_id: agent, patch: { tags: ["db"] } })
    expect(updated.result).toMatchObject({ v: 1, item: { memory_item_id: id, tags: ["db"] } })
    const wrongKind = await peer.request("memory.update", { memory_item_id: id, agent_id: agent, patch: { summary_md: "x" } })
    expect(wrongKind).toMatchObject({ ok: false, error: { code: "invalid_request", message: "incompatible patch fields for kind=note: summary_md" } })

    const forgot = await peer.request("memory.forget", { v: 1, confirm: "FORGET", agent_id: agent, selectors: [{ kind: "tag", tag: "db" }] })
    expect(forgot.result).toMatchObject({ v: 1, deleted_count: 1, tombstones: [{ v: 1, memory_item_id: id, agent_id: agent, deleted_by: "operator" }] })
    const gone = await peer.request("memory.get", { memory_item_id: id, agent_id: agent })
    expect(gone).toMatchObject({ ok: false, error: { code: "not_found", message: "memory item not found" } })

    const events = async (type: string, n: number) => {
      const seen: Array<any> = []
      for (let i = 0; i < n; i++) seen.push(await reader.next((m: any) => m?.type === type && "event_id" in m && m.payload?.v === 1))
      return seen
    }
    expect((await events("memory.item.created", 1))[0].payload.item.agent_id).toBe(agent)
    expect((await events("memory.item.updated", 1))[0].payload.item.tags).toEqual(["db"])
    expect((await events("memory.item.forgotten", 1))[0].payload.deleted_count).toBe(1)
    peer.ws.close()
    reader.ws.close()
  })

  it("refuses bad payloads, the wrong confirmation and a tampered cursor with invalid_request; a reader may not write", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const bad = await peer.request("memory.create", { item: { kind: "fact", key: "k" } })
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid_request" } })
    const badKind = await peer.request("memory.create", { item: { kind: "dream", body_md: "x" } })
    expect(badKind).toMatchObject({ ok: false, error: { code: "invalid_request" } })
    const confirm = await peer.request("memory.forget", { confirm: "yes", selectors: [{ kind: "tag", tag: "x" }] })
    expect(confirm).toMatchObject({ ok: false, error: { code: "invalid_request" } })
    const cursor = await peer.request("memory.list", { cursor: "eyJub3QiOiJhIGN1cnNvciJ9" })
    expect(cursor).toMatchObject({ ok: false, error: { code: "invalid_request", message: "invalid cursor" } })
    const id = await peer.request("memory.get", { memory_item_id: "not-a-uuid" })
    expect(id).toMatchObject({ ok: false, error: { code: "invalid_request" } })
    const clamped = await peer.request("memory.list", { limit: 9999 })
    expect(clamped.ok).toBe(true)

    const { peer: reader } = await connectDevice(["operator.read"])
    expect((await reader.request("memory.list", {})).ok).toBe(true)
    const write = await reader.request("memory.create", { item: { kind: "note", body_md: "x" } })
    expect(write).toMatchObject({ ok: false, error: { code: "forbidden" } })
    peer.ws.close()
    reader.ws.close()
  })

  it("exports over WebSocket and downloads the export over HTTP; 400 for a malformed id, 404 for an unknown one", async () => {
    const agent = `exp-${Math.random().toString(36).slice(2, 10)}`
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const { peer: reader } = await connectDevice(["operator.read"])
    const kept = await peer.request("memory.create", { item: { agent_id: agent, kind: "note", title: "Keep", body_md: "k", tags: ["ops"] } })
    const gone = await peer.request("memory.create", { item: { agent_id: agent, kind: "note", title: "Drop", body_md: "d", tags: ["ops"] } })
    await peer.request("memory.delete", { memory_item_id: gone.result.item.memory_item_id, agent_id: agent })

    expect(await reader.request("memory.export", { filter: { agent_id: agent } })).toMatchObject({ ok: false, error: { code: "forbidden" } })
    const exported = await peer.request("memory.export", { v: 1, filter: { agent_id: agent, tags: ["ops"] }, include_tombstones: true })
    expect(exported).toMatchObject({ ok: true, result: { v: 1 } })
    const id = exported.result.artifact_id as string
    const completed = await reader.next((m: any) => m?.type === "memory.export.completed" && m.payload?.artifact_id === id)
    expect(completed.payload).toEqual({ v: 1, artifact_id: id, agent_id: agent, item_count: 1, tombstone_count: 1 })

    const res = await fetch(`${gw.url}/memory/exports/${id}`, { headers: { authorization: `Bearer ${gw.adminToken}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("application/json")
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="svc-memory-export-${id}.json"`)
    expect(res.headers.get("cache-control")).toBe("no-store")
    const doc: any = await res.json()
    expect(doc).toMatchObject({ v: 1, include_tombstones: true, filter: { agent_id: agent, tags: ["ops"] } })
    expect(doc.items).toEqual([kept.result.item])
    expect(doc.tombstones.map((t: any) => t.memory_item_id)).toEqual([gone.result.item.memory_item_id])

    const get = (path: string) => fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${gw.adminToken}` } })
    const malformed = await get("/memory/exports/not-an-id")
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toMatchObject({ error: "invalid_request" })
    const unknown = await get(`/memory/exports/${crypto.randomUUID()}`)
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual({ error: "not_found", message: "memory export not found" })
    expect((await fetch(`${gw.url}/memory/exports/${id}`)).status).toBe(401)
    peer.ws.close()
    reader.ws.close()
  })
})
