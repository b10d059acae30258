/**
 * Gateways on one PostgreSQL database with `SVC_CLUSTER=1` (issue 27 §2, first part; docs/scaling.md
 * "Backplane on PostgreSQL"): the composition root selects the PostgreSQL backplane, so an event caused on A reaches
 * an operator client connected to B, and each instance sees the other's connections. The workflow engine runs on the
 * cluster's runners (docs/scaling.md "Runners"): A and B listen on their runner ports, authenticated by the cluster
 * secret; a third instance C with `SVC_ROLE=edge` opens no runner port, and a run started on it is executed by A or B.
 * Needs SVC_TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { postgresUrl } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, type TestGateway } from "../support/gateway.ts"
import { CLUSTER_TOKEN as TOKEN, type InProcessCluster, startInProcessCluster } from "../support/inProcessCluster.ts"
import { connectPeer } from "../support/wsPeer.ts"

describe.skipIf(postgresUrl === undefined)("gateways with SVC_CLUSTER=1 on one PostgreSQL database (two runners, one edge)", () => {
  let cluster: InProcessCluster
  let a: TestGateway
  let b: TestGateway
  let c: TestGateway
  beforeAll(async () => {
    // Http steps to this machine run without an approval.
    cluster = await startInProcessCluster(3, (i) => ({ engineApiEnabled: true, ...(i === 2 ? { role: "edge" as const } : {}) }), {
      policyYml: "v: 1\ntools:\n  allow: [tool.http.fetch]\nnetwork_egress:\n  allow: [\"http://127.0.0.1:*\"]\n"
    })
    ;[a, b, c] = cluster.gateways
  }, 90_000)
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

  it("a run started on an edge instance is executed by the runners; every instance reads its end", async () => {
    const started = await postJson(c, "/workflow/run", {
      key: "agent:cluster:main",
      steps: [{ type: "Http", args: { method: "GET", url: `${a.url}/healthz` } }]
    }, TOKEN)
    expect(started.status).toBe(200)
    const run_id = (await readJson(started)).run_id as string
    const statusOn = async (gw: TestGateway) => (await cluster.getJson(gw, `/workflow/runs/${run_id}`)).run?.status
    await eventually(async () => (await statusOn(c)) === "succeeded", "the run to succeed (read on the edge)", 45_000)
    expect(await statusOn(a)).toBe("succeeded")
  }, 60_000)

  it("each runner instance listens on its runner port and refuses a request without the cluster secret; an edge opens none", async () => {
    for (const port of cluster.runnerPorts.slice(0, 2)) {
      // The runner is built shortly after the HTTP server listens (services/workflow/engineInBackground.ts).
      let status = 0
      await eventually(async () => {
        status = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "" }).then((r) => r.status, () => 0)
        return status !== 0
      }, `the runner port ${port} to answer`, 30_000)
      expect(status).toBe(401)
      const wrong = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "", headers: { authorization: `Bearer ${TOKEN}` } })
      expect(wrong.status).toBe(401)
    }
    // C's engine is built (it started the run above): a client-only runner, with no listener.
    expect(await fetch(`http://127.0.0.1:${cluster.runnerPorts[2]}/`, { method: "POST", body: "" }).then((r) => r.status, () => "refused")).toBe("refused")
  }, 60_000)
})
