/**
 * What an operator sees of a cluster (issue 27 §2 third bullet; docs/scaling.md "What an operator sees"): two
 * gateways on one PostgreSQL schema (A `all`, B `edge`); `/status` `peers` lists both with their roles, and a node
 * connected to B shows on A in `/connections`, `/presence` and `/nodes` with B's instance id, while `?instance=<A>`
 * keeps A's only. One gateway on SQLite: `peers` is itself, with the id presence and its connections name.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { postgresUrl } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { readJson, startGateway, TEST_ADMIN_TOKEN, type TestGateway } from "../support/gateway.ts"
import { CLUSTER_TOKEN, type InProcessCluster, startInProcessCluster } from "../support/inProcessCluster.ts"
import { connectPeer, type TestPeer } from "../support/wsPeer.ts"

describe.skipIf(postgresUrl === undefined)("a cluster of two gateways, seen from either", () => {
  let cluster: InProcessCluster
  let a: TestGateway
  let b: TestGateway
  let idA: string
  let idB: string
  let node: { peer: TestPeer; deviceId: string }
  beforeAll(async () => {
    cluster = await startInProcessCluster(2, (i) => (i === 1 ? { role: "edge" } : {}))
    ;[a, b] = cluster.gateways
    idA = (await cluster.getJson(a, "/status")).instance_id
    idB = (await cluster.getJson(b, "/status")).instance_id
    const connected = await connectPeer(b.url, CLUSTER_TOKEN, { role: "node", capabilities: [{ id: "demo.echo" }] })
    node = { peer: connected.peer, deviceId: connected.identity.deviceId }
  }, 60_000)
  afterAll(async () => {
    node?.peer.ws.close()
    await cluster?.close()
  })

  it("lists both instances in /status peers, each with its role, version and heartbeat", async () => {
    expect(idA).not.toBe(idB)
    const status = await cluster.getJson(a, "/status")
    expect(status.role).toBe("all")
    expect((await cluster.getJson(b, "/status")).role).toBe("edge")
    const byId = new Map<string, any>(status.peers.map((p: any) => [p.instance_id, p]))
    expect([...byId.keys()].sort()).toEqual([idA, idB].sort())
    expect(byId.get(idA)).toMatchObject({ role: "all", version: status.version })
    expect(byId.get(idB)).toMatchObject({ role: "edge", version: status.version })
    for (const peer of status.peers) expect(Number.isNaN(Date.parse(peer.last_heartbeat_at))).toBe(false)
    // The node is B's: counted in B's peer entry, not in A's own `ws`.
    await eventually(async () => (await cluster.getJson(a, "/status")).peers.find((p: any) => p.instance_id === idB)?.connections === 1, "B's connection count on A")
    expect((await cluster.getJson(a, "/status")).ws.connections).toBe(0)
  })

  it("shows the node connected to B in A's /connections with B's instance id; ?instance=<A> leaves it out", async () => {
    await eventually(async () => (await cluster.getJson(a, "/connections")).connections.some((c: any) => c.device_id === node.deviceId), "the node in A's /connections")
    const all = await cluster.getJson(a, "/connections")
    expect(all.connections.find((c: any) => c.device_id === node.deviceId)).toMatchObject({ role: "node", instance_id: idB })
    expect(all.by_role.node).toBe(1)
    const onA = await cluster.getJson(a, `/connections?instance=${idA}`)
    expect(onA).toMatchObject({ total: 0, connections: [] })
    const onB = await cluster.getJson(a, `/connections?instance=${idB}`)
    expect(onB.connections.map((c: any) => c.device_id)).toEqual([node.deviceId])
  })

  it("shows the node in A's /presence, held by B, and both gateways; ?instance=<A> keeps A's entries", async () => {
    await eventually(async () => (await cluster.getJson(a, "/presence")).entries.some((e: any) => e.instance_id === node.deviceId), "the node in A's /presence")
    const presence = await cluster.getJson(a, "/presence")
    expect(presence.entries[0]).toMatchObject({ instance_id: idA, role: "gateway", reason: "self", gateway_instance_id: idA })
    expect(presence.entries.find((e: any) => e.instance_id === idB)).toMatchObject({ role: "gateway", gateway_instance_id: idB })
    expect(presence.entries.find((e: any) => e.instance_id === node.deviceId)).toMatchObject({ role: "node", reason: "connect", gateway_instance_id: idB })
    const onA = await cluster.getJson(a, `/presence?instance=${idA}`)
    expect(onA.entries.map((e: any) => e.instance_id)).toEqual([idA])
  })

  it("shows on A which instance holds the node's connection in /nodes; ?instance=<A> counts A's connections only", async () => {
    await eventually(async () => (await cluster.getJson(a, "/nodes")).nodes.some((n: any) => n.node_id === node.deviceId && n.connected), "the node connected in A's /nodes")
    const listed = (await cluster.getJson(a, "/nodes")).nodes.find((n: any) => n.node_id === node.deviceId)
    expect(listed).toMatchObject({ connected: true, connections: 1, instance_ids: [idB] })
    const onA = (await cluster.getJson(a, `/nodes?instance=${idA}`)).nodes.find((n: any) => n.node_id === node.deviceId)
    expect(onA).toMatchObject({ connected: false, connections: 0, instance_ids: [] })
  })

  it("answers 400 to an empty instance filter", async () => {
    const res = await a.fetch("/connections?instance=", { headers: { authorization: `Bearer ${CLUSTER_TOKEN}` } })
    expect(res.status).toBe(400)
    expect(await readJson(res)).toMatchObject({ error: "invalid_request" })
  })

  // Last: stops B. (An instance that dies instead leaves within the directory TTL: test/services/backplane/postgres.test.ts.)
  it("once B stops, A lists itself alone and B's node leaves its presence, connections and nodes", async () => {
    await b.close()
    await eventually(async () => (await cluster.getJson(a, "/status")).peers.length === 1, "A's peers without B")
    expect((await cluster.getJson(a, "/status")).peers.map((p: any) => p.instance_id)).toEqual([idA])
    await eventually(async () => !(await cluster.getJson(a, "/presence")).entries.some((e: any) => e.gateway_instance_id === idB), "B's entries gone from A's presence")
    expect((await cluster.getJson(a, "/connections")).connections).toEqual([])
    expect((await cluster.getJson(a, "/nodes")).nodes.find((n: any) => n.node_id === node.deviceId)).toMatchObject({ connected: false, instance_ids: [] })
  })
})

describe("one gateway on SQLite", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway()
  }, 60_000)
  afterAll(async () => {
    await gw?.close()
  })
  const getJson = async (path: string) => readJson(await gw.fetch(path, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } }))

  it("lists itself as its only peer, under the one id of presence and its connections", async () => {
    const { peer } = await connectPeer(gw.url, TEST_ADMIN_TOKEN)
    const status = await getJson("/status")
    expect(status.db_kind).toBe("sqlite")
    expect(status.peers).toEqual([
      { instance_id: status.instance_id, role: "all", version: status.version, started_at: expect.any(String), last_heartbeat_at: expect.any(String), connections: 1 }
    ])
    expect(status.ws.connections).toBe(1)
    const presence = await getJson("/presence")
    expect(presence.entries[0]).toMatchObject({ instance_id: status.instance_id, reason: "self" })
    expect((await getJson("/connections")).connections.map((c: any) => c.instance_id)).toEqual([status.instance_id])
    expect((await getJson(`/connections?instance=gw-elsewhere`)).connections).toEqual([])
    peer.ws.close()
  })
})
