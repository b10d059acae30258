/**
 * The console's status page on a cluster (issue 27 §3; docs/scaling.md "What an operator sees"), in Chromium: two
 * gateways on one PostgreSQL schema (A `all`, B `edge`) and a node connected to B; the console served by A shows
 * both instances (id, role, version, connections, last heartbeat) and that B holds the node's connection. Screenshot
 * and axe. Needs SVC_TEST_DATABASE_URL and Chromium.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postgresUrl } from "../support/databases.ts"
import { CLUSTER_TOKEN, type InProcessCluster, startInProcessCluster } from "../support/inProcessCluster.ts"
import { connectPeer, type TestPeer } from "../support/wsPeer.ts"
import { browserAvailable, type Console, consoleOn, expectAccessible, screenshot, signIn } from "./browser.ts"

const POLL = { timeout: 20_000 }

describe.skipIf(!browserAvailable || postgresUrl === undefined)("console: the status page of a cluster", () => {
  let cluster: InProcessCluster
  let ui: Console
  let page: Page
  let node: TestPeer
  let nodeId: string
  let idA: string
  let idB: string

  beforeAll(async () => {
    cluster = await startInProcessCluster(2, (i) => (i === 1 ? { role: "edge" } : {}))
    const [a, b] = cluster.gateways
    idA = (await cluster.getJson(a, "/status")).instance_id
    idB = (await cluster.getJson(b, "/status")).instance_id
    const connected = await connectPeer(b.url, CLUSTER_TOKEN, { role: "node", capabilities: [{ id: "demo.echo" }] })
    node = connected.peer
    nodeId = connected.identity.deviceId
    // A console on A; `afterAll` closes its browser, then the cluster (both gateways).
    ui = await consoleOn(a)
    page = (await ui.open()).page
  }, 60_000)
  afterAll(async () => {
    node?.ws.close()
    await ui?.browser.close()
    await cluster?.close()
  })

  it("lists both instances with their roles and connections, and the instance holding the node", async () => {
    await signIn(page, CLUSTER_TOKEN)
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Status" }).click()
    await page.getByRole("heading", { name: "Status", level: 1 }).waitFor()
    const instances = page.getByRole("table", { name: "Instances" })
    const row = (id: string) => instances.getByRole("row").filter({ hasText: id })
    await row(idA).waitFor(POLL)
    await row(idB).waitFor(POLL)
    const cells = async (id: string) => (await row(id).getByRole("cell").allTextContents()).map((t) => t.trim())
    // Instance, role, version, connections, last heartbeat: B holds the node's connection (the console's own is A's).
    await expect.poll(async () => (await cells(idB))[3], POLL).toBe("1")
    const b = await cells(idB)
    expect(b.slice(0, 3)).toEqual([idB, "edge", "0.1.0"])
    expect(Number.isNaN(Date.parse(b[4]))).toBe(false)
    const a = await cells(idA)
    expect(a[0]).toBe(`${idA} (this one)`)
    expect(a[1]).toBe("all")

    const holders = page.getByRole("table", { name: "Node connections by instance" })
    const nodeRow = holders.getByRole("row").filter({ hasText: nodeId })
    await nodeRow.waitFor(POLL)
    expect((await nodeRow.getByRole("cell").allTextContents()).map((t) => t.trim())).toEqual([`test${nodeId}`, "1", idB])
    await screenshot(page, "status-cluster")
    await expectAccessible(page)
  })
})
