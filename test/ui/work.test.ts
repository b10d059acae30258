/**
 * The console's Work board in Chromium (issue 24 §6) against a real gateway:
 * columns by status; items created from the page (with the keyboard) start
 * in backlog; each card offers exactly the moves the server's state machine
 * allows; the doing column shows the WIP limit ("doing 2/2") and a third item
 * refused `wip_limit_exceeded` is explained; items created and moved by
 * another client appear live; a board that missed an event (its WebSocket
 * routed to drop events) offers a stale move and shows the gateway's
 * `invalid_transition` with the allowed moves; the scope selector switches
 * boards; a read-only device token issued for the browser sees the board
 * live without create or move. The state machine the page offers is the server's own table.
 * Screenshots and axe on each state.
 */
import type { Locator, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TRANSITIONS, WIP_LIMIT } from "../../services/work/transitions.ts"
import { STATUSES, TRANSITIONS as UI_TRANSITIONS, WIP_LIMIT as UI_WIP_LIMIT } from "../../ui/src/pages/work/types.ts"
import { postJson, readJson } from "../support/gateway.ts"
import { connectPeer, type TestPeer } from "../support/wsPeer.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole, tabTo, waitLive } from "./browser.ts"

const SCOPE = { tenant_id: "default", agent_id: "default", workspace_id: "default" }

describe("console work board: the state machine it offers", () => {
  it("is the server's table, with a column for every status", () => {
    expect(UI_TRANSITIONS).toBe(TRANSITIONS)
    expect(UI_WIP_LIMIT).toBe(WIP_LIMIT)
    expect([...STATUSES].sort()).toEqual(Object.keys(TRANSITIONS).sort())
  })
})

describe.skipIf(!browserAvailable)("console: work board", () => {
  let ui: Console
  let page: Page
  let peer: TestPeer

  const column = (p: Page, status: string) => p.getByRole("region", { name: new RegExp(`^${status}\\b`) })
  const card = (p: Page, title: string) => p.locator("li.card").filter({ has: p.getByText(title, { exact: true }) })
  const moves = async (c: Locator) =>
    (await c.getByRole("button").allTextContents()).map((text) => text.replace(/^→ (\w+).*$/, "$1"))
  const move = (p: Page, title: string, to: string) => card(p, title).getByRole("button", { name: new RegExp(`^→ ${to} `) }).click()
  const statusOf = async (title: string) => {
    const answer = await peer.request("work.list", { ...SCOPE, limit: 500 })
    return answer.result.items.find((item: any) => item.title === title)?.status
  }

  beforeAll(async () => {
    ui = await startConsole({ rateLimitMax: 10_000 })
    peer = (await connectPeer(ui.gw.url, ui.gw.adminToken)).peer
    page = (await ui.open()).page
    await signIn(page, ui.gw.adminToken)
    await waitLive(page)
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Work board" }).click()
    await page.getByRole("heading", { name: "Work board", level: 1 }).waitFor()
  })
  afterAll(async () => {
    peer?.ws.close()
    await ui?.close()
  })

  it("shows a column per status and creates items in backlog with the keyboard", async () => {
    for (const status of ["backlog (0)", "ready (0)", "doing 0/2", "blocked (0)", "done (0)", "failed (0)", "cancelled (0)"]) {
      await page.getByRole("heading", { level: 2, name: status }).waitFor()
    }
    await screenshot(page, "work-empty")
    await expectAccessible(page)

    for (const title of ["Rotate the API key", "Patch the proxy", "Renew the certificate"]) {
      await page.getByLabel("Title").focus()
      await page.keyboard.type(title)
      await page.keyboard.press("Enter")
      await page.getByRole("status").filter({ hasText: `Created “${title}” in backlog.` }).waitFor()
    }
    await page.getByRole("heading", { level: 2, name: "backlog (3)" }).waitFor()
    // A backlog card offers only → ready.
    expect(await moves(card(page, "Rotate the API key"))).toEqual(["ready"])
    expect(await statusOf("Rotate the API key")).toBe("backlog")
    await screenshot(page, "work-backlog")
    await expectAccessible(page)
  }, 90_000)

  it("offers only the allowed moves, shows the WIP limit and explains wip_limit_exceeded", async () => {
    for (const title of ["Rotate the API key", "Patch the proxy", "Renew the certificate"]) await move(page, title, "ready")
    await page.getByRole("heading", { level: 2, name: "ready (3)" }).waitFor()
    expect(await moves(card(page, "Patch the proxy"))).toEqual(["doing", "cancelled"])

    // Keyboard: reach the card's → doing with Tab and press Enter.
    await card(page, "Rotate the API key").getByRole("button", { name: /^→ doing / }).focus()
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { level: 2, name: "doing 1/2" }).waitFor()
    await move(page, "Patch the proxy", "doing")
    await page.getByRole("heading", { level: 2, name: "doing 2/2" }).waitFor()
    expect(await moves(card(page, "Patch the proxy"))).toEqual(["blocked", "done", "failed", "cancelled"])

    await move(page, "Renew the certificate", "doing")
    const alert = page.getByRole("alert").filter({ hasText: "WIP limit reached" })
    await alert.waitFor()
    expect(await alert.textContent()).toBe(
      "WIP limit reached: 2 of 2 items are already in doing for this scope. Move one out of doing first (wip_limit_exceeded)."
    )
    expect(await statusOf("Renew the certificate")).toBe("ready")
    await page.getByRole("heading", { level: 2, name: "doing 2/2" }).waitFor()
    await screenshot(page, "work-wip-limit")
    await expectAccessible(page)

    // Done is final: no move offered; the slot frees up.
    await move(page, "Rotate the API key", "done")
    await page.getByRole("heading", { level: 2, name: "done (1)" }).waitFor()
    expect(await moves(card(page, "Rotate the API key"))).toEqual([])
    await tabTo(page, /^→ doing\s*\(move Renew the certificate\)$/)
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { level: 2, name: "doing 2/2" }).waitFor()
    expect(await statusOf("Renew the certificate")).toBe("doing")
    expect(await page.getByRole("alert").count()).toBe(0)
  }, 90_000)

  it("follows another client's changes live", async () => {
    const created = await peer.request("work.create", { ...SCOPE, item: { kind: "initiative", title: "Made elsewhere", priority: 2 } })
    expect(created.ok).toBe(true)
    await card(page, "Made elsewhere").waitFor()
    expect(await card(page, "Made elsewhere").textContent()).toContain("initiative, priority 2")
    await peer.request("work.transition", { ...SCOPE, work_item_id: created.result.item.work_item_id, status: "ready" })
    await column(page, "ready").getByText("Made elsewhere", { exact: true }).waitFor()
  }, 90_000)

  it("explains invalid_transition when the board missed an event", async () => {
    // A second tab whose WebSocket drops every event: its board goes stale.
    const { context } = await ui.open()
    await context.routeWebSocket(/\/ws$/, (socket) => {
      const server = socket.connectToServer()
      socket.onMessage((message) => server.send(message))
      server.onMessage((message) => {
        if (typeof message === "string" && message.includes("\"event_id\"")) return
        socket.send(message)
      })
    })
    const stale = await context.newPage()
    await signIn(stale, ui.gw.adminToken)
    await waitLive(stale)
    await stale.goto("/ui/work")
    await card(stale, "Made elsewhere").getByRole("button", { name: /^→ doing / }).waitFor()
    const id = (await peer.request("work.list", { ...SCOPE })).result.items.find((i: any) => i.title === "Made elsewhere").work_item_id
    expect((await peer.request("work.transition", { ...SCOPE, work_item_id: id, status: "cancelled" })).ok).toBe(true)
    // The stale card still offers → doing; the gateway refuses it.
    await move(stale, "Made elsewhere", "doing")
    const alert = stale.getByRole("alert").filter({ hasText: "Cannot move" })
    await alert.waitFor()
    expect(await alert.textContent()).toBe(
      "Cannot move from cancelled to doing: from cancelled an item may move to nothing (cancelled is final). " +
        "The board was out of date and has been reloaded (invalid_transition)."
    )
    await column(stale, "cancelled").getByText("Made elsewhere", { exact: true }).waitFor()
    await screenshot(stale, "work-invalid-transition")
    await expectAccessible(stale)
    await context.close()
  }, 90_000)

  it("switches boards with the scope selector", async () => {
    await page.getByLabel("Workspace").fill("staging")
    await page.getByLabel("Workspace").press("Enter")
    await page.getByRole("heading", { level: 2, name: "backlog (0)" }).waitFor()
    await page.getByText("0 items; doing 0/2").waitFor()
    await page.getByLabel("Title").fill("Staging only")
    await page.getByRole("button", { name: "Create" }).click()
    await card(page, "Staging only").waitFor()
    const staging = await peer.request("work.list", { ...SCOPE, workspace_id: "staging" })
    expect(staging.result.items.map((i: any) => i.title)).toEqual(["Staging only"])
    await page.getByLabel("Workspace").fill("")
    await page.getByLabel("Workspace").press("Enter")
    await page.getByText("4 items; doing 2/2").waitFor()
  }, 90_000)

  it("a device token with operator.read, issued for this browser, sees the board live without its actions", async () => {
    const { context, page: reader } = await ui.open()
    try {
      await signIn(reader, ui.gw.adminToken)
      const deviceId = (await reader.locator(".top .device").textContent())!.trim()
      await reader.getByRole("button", { name: "Sign out" }).click()
      const issued = await postJson(ui.gw, "/auth/device-tokens/issue", { device_id: deviceId, role: "client", scopes: ["operator.read"] }, ui.gw.adminToken)
        .then(readJson)
      await signIn(reader, issued.token)
      await waitLive(reader)
      await reader.goto("/ui/work")
      await card(reader, "Patch the proxy").waitFor()
      await reader.getByRole("heading", { level: 2, name: "doing 2/2" }).waitFor()
      expect(await reader.getByRole("button", { name: /^→ / }).count()).toBe(0)
      expect(await reader.getByRole("form", { name: "New work item" }).count()).toBe(0)
      await peer.request("work.create", { ...SCOPE, item: { kind: "action", title: "Seen by the reader" } })
      await card(reader, "Seen by the reader").waitFor()
    } finally {
      await context.close()
    }
  }, 90_000)
})
