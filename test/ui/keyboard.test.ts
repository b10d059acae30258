/**
 * The console without a mouse (issue 23 §3 "Keyboard: every action reachable
 * without a mouse"): sign in, reach the approvals page through the skip link
 * and the navigation, open an approval and approve it, with the keyboard only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postJson, readJson } from "../support/gateway.ts"
import { browserAvailable, type Console, startConsole, tabTo } from "./browser.ts"

describe.skipIf(!browserAvailable)("console: keyboard only", () => {
  let ui: Console

  beforeAll(async () => {
    ui = await startConsole({ rateLimitMax: 10_000 })
  })
  afterAll(async () => {
    await ui?.close()
  })

  it("signs in, opens an approval and approves it with the keyboard", async () => {
    const planned = await postJson(ui.gw, "/plan", {
      request_id: "ui-keyboard",
      trigger: { channel: "web", thread_id: "kb", message: { text: "Buy the conference ticket" } },
      tags: ["spend:25000:USD:Conf_Inc", "pii:none", "legal:none"]
    }, ui.gw.adminToken).then(readJson)
    const id: number = planned.escalation.approval_id
    const { page } = await ui.open()
    await page.goto("/ui")
    await tabTo(page, /^token$/)
    await page.keyboard.type(ui.gw.adminToken)
    await page.keyboard.press("Enter")
    await page.getByRole("navigation", { name: "Pages" }).waitFor()
    await page.getByRole("button", { name: `Decide approval ${id}` }).waitFor()
    // The skip link is the first stop and moves focus to the page's content.
    await page.keyboard.press("Tab")
    await expect(page.evaluate<string>("document.activeElement.textContent")).resolves.toBe("Skip to content")
    await page.keyboard.press("Enter")
    await tabTo(page, new RegExp(`^Decide approval ${id}$`))
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { name: `Approval ${id} (spend, pending)` }).waitFor()
    await tabTo(page, /^Approve once$/)
    await page.keyboard.press("Enter")
    await page.getByRole("status").filter({ hasText: `Approval ${id} approved` }).waitFor()
    expect((await readJson(await ui.gw.fetch(`/approvals/${id}`, { headers: { authorization: `Bearer ${ui.gw.adminToken}` } }))).approval.status)
      .toBe("approved")
    // Every page of the navigation is reachable by Tab.
    await tabTo(page, /^Status$/)
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { name: "Status", level: 1 }).waitFor()
  })
})
