/**
 * Semantic memory search over WebSocket on a real server started with
 * `SVC_MEMORY_SEMANTIC=builtin` (docs/memory.md "Semantic search"): a typo
 * that no keyword matches finds the item, hits say which ranking matched
 * them, and a delete takes the item out of the vector ranking too.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer } from "../support/wsPeer.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 10_000, memorySemantic: "builtin" })
})
afterAll(() => gw.close())

describe("memory.search with semantic search on", () => {
  it("finds a typo by its 3-grams, fuses with keyword hits, and forgets deleted items", async () => {
    const agent = `sem-${Math.random().toString(36).slice(2, 10)}`
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const create = async (item: object) =>
      (await peer.request("memory.create", { v: 1, item: { agent_id: agent, ...item } })).result.item.memory_item_id as string
    const cluster = await create({ kind: "note", title: "Kubernetes cluster", body_md: "Control plane on three nodes." })
    await create({ kind: "note", title: "Garden", body_md: "Roses and tulips in spring." })
    const upgrade = await create({ kind: "note", title: "Kubernetes upgrade", body_md: "Plan it." })

    const typo = await peer.request("memory.search", { v: 1, query: "kuberntes", filter: { agent_id: agent } })
    expect(typo.ok).toBe(true)
    expect(new Set(typo.result.hits.map((h: any) => h.memory_item_id))).toEqual(new Set([cluster, upgrade]))
    expect(typo.result.hits.every((h: any) => h.matched.length === 1 && h.matched[0] === "semantic" && h.snippet === undefined)).toBe(true)

    const mixed = await peer.request("memory.search", { v: 1, query: "kuberntes upgrade", filter: { agent_id: agent } })
    expect(mixed.result.hits[0]).toMatchObject({ memory_item_id: upgrade, score: 1, matched: ["keyword", "semantic"] })

    expect((await peer.request("memory.delete", { memory_item_id: cluster, agent_id: agent })).ok).toBe(true)
    const after = await peer.request("memory.search", { v: 1, query: "kuberntes", filter: { agent_id: agent } })
    expect(after.result.hits.map((h: any) => h.memory_item_id)).toEqual([upgrade])
  })
})
