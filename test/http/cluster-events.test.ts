/**
 * Two gateways on one PostgreSQL database with `SVC_CLUSTER=1` (issue 27 §2, first part; docs/scaling.md
 * "Backplane on PostgreSQL"): the composition root selects the PostgreSQL backplane, so an event caused on A reaches
 * an operator client connected to B, and each instance sees the other's connections. Needs SVC_TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { postgresUrl } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import type { TestGateway } from "../support/gateway.ts"
import { CLUSTER_TOKEN as TOKEN, type InProcessCluster, startInProcessCluster } from "../support/inProcessCluster.ts"
import { connectPeer } from "../support/wsPeer.ts"

describe.skipIf(postgresUrl === undefined)("two gateways with SVC_CLUSTER=1 on one PostgreSQL database", () => {
  let cluster: InProcessCluster
  let a: TestGateway
  let b: TestGateway
  beforeAll(async () => {
    cluster = await startInProcessCluster(2)
    ;[a, b] = cluster.gateways
  }, 60_000)
  afterAll(async () => {
    await cluster?.close()
  })

  it("delivers an event caused on one instance to an operator connected to the other, and shares the directory", async () => {
    const { peer: onB } = await connectPeer(b.url, TOKEN)
    const { peer: onA } = await connectPeer(a.url, TOKEN)
    const created = await onA.request("memory.create", { item: { kind: "note", title: "Cluster note", body_md: "from A" } })
    expect(created.ok, JSON.stringify(created)).toBe(true)
    const event = await onB.next((m) => m.type === "memory.item.created", 15_000)
    expect(event.payload.item.memory_item_id).toBe(created.result.item.memory_item_id)
    await eventually(async () => (await cluster.getJson(b, "/connections")).connections?.length >= 2, "B lists both connections")
    onA.ws.close()
    onB.ws.close()
  }, 60_000)
})
