/**
 * Two gateways on one PostgreSQL database with `SVC_CLUSTER=1` (issue 27 §2, first part; docs/scaling.md
 * "Backplane on PostgreSQL"): the composition root selects the PostgreSQL backplane, so an event caused on A reaches
 * an operator client connected to B, and each instance sees the other's connections. Needs SVC_TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "../support/docShell.ts"
import { postgresUrl, sharedPostgresSchema } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer } from "../support/wsPeer.ts"

const TOKEN = "cluster-test-admin-token-0123456789abcdef"
const SECRET = "cluster-test-secret-0123456789abcdef-0123"

describe.skipIf(postgresUrl === undefined)("two gateways with SVC_CLUSTER=1 on one PostgreSQL database", () => {
  let shared: Awaited<ReturnType<typeof sharedPostgresSchema>>
  let a: TestGateway
  let b: TestGateway
  let runnerPorts: Array<number> = []
  beforeAll(async () => {
    shared = await sharedPostgresSchema(postgresUrl!)
    // One home: every instance of a cluster needs the same secrets master key (it refuses to start otherwise).
    const home = mkdtempSync(join(tmpdir(), "svc-cluster-"))
    const settings = {
      home,
      clusterEnabled: true,
      clusterSecret: Redacted.make(SECRET),
      adminToken: Redacted.make(TOKEN),
      rateLimitMax: 10_000
    } as const
    // Each instance's workflow runner listens on its own port (services/workflow/engine/ClusterRunner.ts).
    runnerPorts = [await freePort(), await freePort()]
    a = await startGateway({ ...settings, runnerHost: "127.0.0.1", runnerPort: runnerPorts[0] } as never, shared.layer())
    b = await startGateway({ ...settings, runnerHost: "127.0.0.1", runnerPort: runnerPorts[1] } as never, shared.layer())
  }, 60_000)
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await shared?.drop()
  })

  it("delivers an event caused on one instance to an operator connected to the other, and shares the directory", async () => {
    const { peer: onB } = await connectPeer(b.url, TOKEN)
    const { peer: onA } = await connectPeer(a.url, TOKEN)
    const created = await onA.request("memory.create", { item: { kind: "note", title: "Cluster note", body_md: "from A" } })
    expect(created.ok, JSON.stringify(created)).toBe(true)
    const event = await onB.next((m) => m.type === "memory.item.created", 15_000)
    expect(event.payload.item.memory_item_id).toBe(created.result.item.memory_item_id)
    await eventually(async () => (await readJson(await b.fetch("/connections", { headers: { authorization: `Bearer ${TOKEN}` } }))).connections?.length >= 2, "B lists both connections")
    onA.ws.close()
    onB.ws.close()
  }, 60_000)

  it("each instance's workflow runner listens on its runner port and refuses a request without the cluster secret", async () => {
    for (const port of runnerPorts) {
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
  }, 60_000)
})
