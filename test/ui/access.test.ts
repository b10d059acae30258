/**
 * What a device token sees in the console (issue 23 §2.1, §3): only the pages
 * its scopes allow (no admin page without operator.admin), a page it may not
 * see answers "Nothing here", it works by polling when the token is bound to
 * another device, and the status page (charts from /metrics) for operator.read.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postJson, readJson } from "../support/gateway.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole } from "./browser.ts"

describe.skipIf(!browserAvailable)("console: a device token sees what its scopes allow", () => {
  let ui: Console
  let page: Page
  let token: string

  beforeAll(async () => {
    ui = await startConsole({ rateLimitMax: 10_000 })
    const issued = await postJson(ui.gw, "/auth/device-tokens/issue", {
      device_id: "ops-laptop",
      role: "client",
      scopes: ["operator.read", "operator.approvals"],
      ttl_seconds: 3600
    }, ui.gw.adminToken).then(readJson)
    token = issued.token
    page = (await ui.open()).page
  })
  afterAll(async () => {
    await ui?.close()
  })

  it("lists only the pages of its scopes and names itself a device token", async () => {
    await signIn(page, token)
    const nav = page.getByRole("navigation", { name: "Pages" })
    const titles = await nav.getByRole("link").allTextContents()
    expect(titles).toContain("Approvals")
    expect(titles).toContain("Status")
    for (const admin of ["Policy", "Secrets", "Device tokens", "Auth profiles", "Routing", "Plugins", "Watchers", "Snapshots", "Audit"]) {
      expect(titles).not.toContain(admin)
    }
    await expect(page.locator(".who").textContent()).resolves.toContain("device token (operator.read, operator.approvals)")
  })

  it("works by polling when the token was issued for another device, and says why", async () => {
    await page.locator(".live-offline").waitFor()
    await expect(page.locator(".live").textContent()).resolves.toContain("polling")
  })

  it("answers a page outside its scopes with Nothing here", async () => {
    await page.goto("/ui/secrets")
    await page.getByRole("heading", { name: "Nothing here" }).waitFor()
    await page.getByRole("link", { name: "Go to Approvals" }).waitFor()
  })

  it("shows /status and charts from /metrics", async () => {
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Status" }).click()
    await page.getByRole("heading", { name: "Status", level: 1 }).waitFor()
    const facts = page.getByLabel("Gateway status")
    await expect(facts.textContent()).resolves.toContain("sqlite")
    // Two scrapes make a rate: the requests/s chart gets its first point.
    await expect.poll(() => page.getByRole("img", { name: /^Requests\/s: \d/ }).count(), { timeout: 15_000 }).toBe(1)
    await page.getByRole("img", { name: /^Approvals pending: 0/ }).waitFor()
    await screenshot(page, "status")
    await expectAccessible(page)
  })
})
