/**
 * The console's Pairings and Nodes pages in Chromium (issue 23 §2.3, §3): the
 * demo node connects on the admin token and asks to pair; its pending
 * pairing shows at once on the Pairings page; the operator approves it with
 * a trust level and a capability allowlist (one of its two advertised
 * capabilities); a second console, open on the Nodes page, sees the node's
 * capability become ready without a reload; a test task dispatched from the
 * UI shows the node's result and the evidence it reported. A second node is
 * denied with a reason; the first one is revoked (its connections close and
 * it asks again). A device token without operator.admin sees no dispatch,
 * one without operator.pairing no Pairings page. Every state: screenshot +
 * axe; every result checked through the HTTP API.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { GatewayClient } from "../../src/client/index.ts"
import { loadOrCreateDeviceIdentity, runDemoNode } from "../../src/client/index.ts"
import { postJson, readJson } from "../support/gateway.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole, waitLive } from "./browser.ts"

const POLL = { timeout: 20_000 }

describe.skipIf(!browserAvailable)("console: pairings and nodes", () => {
  let ui: Console
  /** The operator's console (Pairings page). */
  let page: Page
  /** A second console, left open on the Nodes page. */
  let watcher: Page
  const clients: Array<GatewayClient> = []
  const dir = mkdtempSync(join(tmpdir(), "svc-ui-nodes-"))
  const auth = () => ({ authorization: `Bearer ${ui.gw.adminToken}` })
  const get = async (path: string) => readJson(await ui.gw.fetch(path, { headers: auth() }))
  const pairingOf = async (nodeId: string) =>
    (await get("/pairings")).pairings.find((p: { node: { node_id: string } }) => p.node.node_id === nodeId)
  const nodeOf = async (nodeId: string) => (await get("/nodes")).nodes.find((n: { node_id: string }) => n.node_id === nodeId)

  /** Starts a demo node (admin token as its bootstrap credential); answers its device id and pending pairing id. */
  const startNode = async (name: string, capabilities?: ReadonlyArray<{ id: string; version?: string }>) => {
    const identityPath = join(dir, `${name}.json`)
    const client = await runDemoNode({
      url: ui.gw.url,
      token: ui.gw.adminToken,
      identityPath,
      ...(capabilities === undefined ? {} : { capabilities }),
      log: () => undefined
    })
    clients.push(client)
    const nodeId = (await loadOrCreateDeviceIdentity(identityPath)).device_id
    let pairingId = 0
    await expect.poll(async () => (pairingId = (await pairingOf(nodeId))?.pairing_id ?? 0), POLL).toBeGreaterThan(0)
    return { client, nodeId, pairingId }
  }

  const pairingRow = (p: Page, id: number) =>
    p.getByRole("row").filter({ has: p.getByRole("button", { name: new RegExp(`^(Review|Details) pairing ${id}$`) }) })
  const nodeRow = (p: Page, nodeId: string) => p.getByRole("table", { name: "Nodes" }).getByRole("row").filter({ hasText: nodeId })
  /** The text of a cell of `nodeId`'s row on the Nodes page (0 node, 1 pairing, 2 connection, 3 ready, 4 allowlist). */
  const nodeCell = (p: Page, nodeId: string, index: number) => nodeRow(p, nodeId).getByRole("cell").nth(index).textContent()

  let first: Awaited<ReturnType<typeof startNode>>

  beforeAll(async () => {
    ui = await startConsole({ rateLimitMax: 10_000 })
    page = (await ui.open()).page
    watcher = (await ui.open()).page
  })
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined)
    await ui?.close()
  })

  it("shows a node asking to pair at once and approves it with a trust level and a capability allowlist", async () => {
    await signIn(page, ui.gw.adminToken)
    await waitLive(page)
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Pairings" }).click()
    await page.getByRole("heading", { name: "Pairings", level: 1 }).waitFor()
    await page.getByText("No node is waiting for approval.").waitFor()
    await expectAccessible(page)

    await signIn(watcher, ui.gw.adminToken)
    await waitLive(watcher)
    await watcher.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Nodes" }).click()
    await watcher.getByRole("heading", { name: "Nodes", level: 1 }).waitFor()

    first = await startNode("node-a", [{ id: "demo.echo", version: "1.0.0" }, { id: "demo.extra", version: "2.0.0" }])
    const row = pairingRow(page, first.pairingId)
    await row.waitFor()
    await expect(row.textContent()).resolves.toContain("demo.extra 2.0.0")
    await expect(row.textContent()).resolves.toContain(first.nodeId)
    await screenshot(page, "pairings")
    await expectAccessible(page)

    await row.getByRole("button").click()
    await page.getByRole("heading", { name: `Pairing ${first.pairingId} (pending)` }).waitFor()
    await expect(page.getByRole("region", { name: `Pairing ${first.pairingId} (pending)` }).textContent()).resolves.toContain(first.nodeId)
    await page.getByLabel("local", { exact: true }).check()
    await page.getByLabel("Allow demo.extra 2.0.0").uncheck()
    await page.getByText("Allowlist sent: demo.echo 1.0.0").waitFor()
    await page.getByLabel("Reason (optional)").fill("rack 4")
    await screenshot(page, "pairing-review")
    await expectAccessible(page)
    await page.getByRole("button", { name: "Approve" }).click()
    await page.getByRole("status").filter({ hasText: `Pairing ${first.pairingId} (svc-gateway demo node) approved.` }).waitFor()
    await row.waitFor({ state: "detached" })

    expect(await pairingOf(first.nodeId)).toMatchObject({
      status: "approved",
      trust_level: "local",
      capability_allowlist: [{ id: "demo.echo", version: "1.0.0" }],
      resolution: { decision: "approved", reason: "rack 4" }
    })
  })

  it("shows on the open Nodes page that the capability became ready, without a reload", async () => {
    // Ready: what it declared among what it advertised; demo.extra is ready but not allowlisted, so not dispatchable.
    await expect.poll(() => nodeCell(watcher, first.nodeId, 3), POLL).toContain("demo.echo 1.0.0")
    await expect(nodeCell(watcher, first.nodeId, 3)).resolves.toBe(
      "demo.echo 1.0.0also ready, not dispatchable: demo.extra 2.0.0 (demo.extra is not in its capability allowlist)"
    )
    await expect(nodeCell(watcher, first.nodeId, 1)).resolves.toBe("approved (local)")
    await expect(nodeCell(watcher, first.nodeId, 2)).resolves.toBe("connected")
    await expect(nodeCell(watcher, first.nodeId, 4)).resolves.toBe("demo.echo 1.0.0")
    expect(watcher.url()).toMatch(/\/ui\/nodes$/)
    await watcher.getByRole("table", { name: "Live connections" }).getByRole("row").filter({ hasText: first.nodeId }).waitFor()
    await screenshot(watcher, "nodes")
    await expectAccessible(watcher)
    expect((await nodeOf(first.nodeId)).ready_capabilities).toEqual([{ id: "demo.echo", version: "1.0.0" }, { id: "demo.extra", version: "2.0.0" }])
  })

  it("dispatches a test task from the UI and shows the node's result and evidence", async () => {
    await nodeRow(watcher, first.nodeId).getByRole("button", { name: `Dispatch to svc-gateway demo node (${first.nodeId})` }).click()
    await watcher.getByRole("heading", { name: "Dispatch a test task to svc-gateway demo node" }).waitFor()
    await expect(watcher.getByLabel("Capability").locator("option").allTextContents()).resolves.toEqual(["demo.echo 1.0.0"])

    await watcher.getByLabel("Action (JSON object)").fill("[1, 2]")
    await watcher.getByRole("button", { name: "Dispatch", exact: true }).click()
    await watcher.getByRole("alert").filter({ hasText: "must be a JSON object" }).waitFor()

    await watcher.getByLabel("Action (JSON object)").fill(JSON.stringify({ text: "ping from the browser" }))
    await watcher.getByRole("button", { name: "Dispatch", exact: true }).click()
    await watcher.getByRole("status").filter({ hasText: `answered by ${first.nodeId}` }).waitFor()
    const result = await watcher.getByLabel("Task result").textContent()
    expect(JSON.parse(result ?? "null")).toMatchObject({ echoed: { action: { text: "ping from the browser" }, step_id: "0" } })
    await expect.poll(() => watcher.getByLabel("Reported evidence 1").textContent().catch(() => ""), POLL).toContain("echoed_at")
    await screenshot(watcher, "node-dispatch")
    await expectAccessible(watcher)
  })

  it("denies a second node with a reason", async () => {
    const second = await startNode("node-b")
    await pairingRow(page, second.pairingId).getByRole("button").click()
    await page.getByRole("heading", { name: `Pairing ${second.pairingId} (pending)` }).waitFor()
    await page.getByLabel("Reason (optional)").fill("unknown device")
    await page.getByRole("button", { name: "Deny" }).click()
    await page.getByRole("status").filter({ hasText: `Pairing ${second.pairingId} (svc-gateway demo node) denied.` }).waitFor()
    await page.getByRole("heading", { name: `Pairing ${second.pairingId} (denied)` }).waitFor()
    expect(await pairingOf(second.nodeId)).toMatchObject({ status: "denied", resolution: { decision: "denied", reason: "unknown device" } })
    await expect.poll(() => nodeCell(watcher, second.nodeId, 1), POLL).toBe("denied")
    await expect.poll(async () => (await nodeOf(second.nodeId)).connected, POLL).toBe(false)
    await page.getByLabel("Status").selectOption("denied")
    await expect(pairingRow(page, second.pairingId).textContent()).resolves.toContain("denied: unknown device")
  })

  it("revokes the first node: its token stops working, its connections close and it asks again", async () => {
    await page.getByLabel("Status").selectOption("approved")
    await pairingRow(page, first.pairingId).getByRole("button").click()
    await page.getByRole("heading", { name: `Pairing ${first.pairingId} (approved)` }).waitFor()
    await page.getByRole("button", { name: "Revoke…" }).click()
    await page.getByRole("button", { name: "Confirm revoke" }).click()
    await page.getByRole("status").filter({ hasText: `Pairing ${first.pairingId} (svc-gateway demo node) revoked.` }).waitFor()
    // The node falls back to its bootstrap token and is pending again, live on both pages.
    await page.getByLabel("Status").selectOption("pending")
    await pairingRow(page, first.pairingId).waitFor()
    await expect.poll(() => nodeCell(watcher, first.nodeId, 3), POLL).toBe("none")
    await expect(nodeCell(watcher, first.nodeId, 1)).resolves.toBe("pending")
    expect(await pairingOf(first.nodeId)).toMatchObject({ status: "pending", capability_allowlist: [] })
    expect((await nodeOf(first.nodeId)).ready_capabilities).toEqual([])
  })

  it("a device token without operator.admin dispatches nothing; without operator.pairing sees no Pairings page", async () => {
    const issued = await postJson(ui.gw, "/auth/device-tokens/issue", { device_id: "ops-reader", role: "client", scopes: ["operator.read"] }, ui.gw.adminToken)
    expect(issued.status).toBe(201)
    const { token } = await readJson(issued)
    const reader = (await ui.open()).page
    await signIn(reader, token)
    const nav = reader.getByRole("navigation", { name: "Pages" })
    await nav.getByRole("link", { name: "Nodes" }).click()
    await nodeRow(reader, first.nodeId).waitFor()
    await reader.getByText("Dispatching a test task needs operator.admin.").waitFor()
    await expect(reader.getByRole("button", { name: /^Dispatch to / }).count()).resolves.toBe(0)
    await expect(nav.getByRole("link", { name: "Pairings" }).count()).resolves.toBe(0)
    await screenshot(reader, "nodes-read-only")
    await expectAccessible(reader)
    await reader.goto("/ui/pairings")
    await reader.getByRole("heading", { name: "Nothing here" }).waitFor()
    await reader.context().close()
  })
})
