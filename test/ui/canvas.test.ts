/**
 * The console's Canvas page in Chromium (issue 24 §6): published pages are
 * listed newest first, their metadata shown, and opened as the gateway serves
 * them — where a page's `<script>` (inline, and an inline event handler) does
 * not run because its CSP holds (Chromium reports the refusals), while its
 * inline style applies. "Load more" follows the listing's cursor. Every state:
 * screenshot + axe; results checked through the HTTP API.
 */
import type { ConsoleMessage, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postJson, readJson } from "../support/gateway.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole } from "./browser.ts"

const POLL = { timeout: 20_000 }

const HOSTILE = [
  "<!doctype html><html><head><title>Canvas test</title></head><body>",
  "<h1>Deploy report</h1>",
  "<p id=\"styled\" style=\"color: rgb(0, 128, 0)\">3 services updated</p>",
  "<script>document.body.setAttribute('data-ran', 'script'); document.title = 'ran'</script>",
  "<img src=\"data:,\" alt=\"\" onerror=\"document.body.setAttribute('data-ran', 'handler')\">",
  "</body></html>"
].join("")

describe.skipIf(!browserAvailable)("console: canvas pages", () => {
  let ui: Console
  let page: Page
  const publish = async (body: Record<string, unknown>) => {
    const res = await postJson(ui.gw, "/canvas/publish", body, ui.gw.adminToken)
    expect(res.status).toBe(201)
    return ((await readJson(res)) as { id: string }).id
  }

  beforeAll(async () => {
    ui = await startConsole({ rateLimitMax: 10_000 })
    page = (await ui.open()).page
  })
  afterAll(async () => {
    await ui?.close()
  })

  it("lists published pages and shows one's metadata", async () => {
    await publish({ title: "Plain notes", content_type: "text/plain", html_content: "just text" })
    const id = await publish({ title: "Deploy report", content_type: "text/html", html_content: HOSTILE, plan_id: "plan-42", metadata: { run: "nightly" } })

    await signIn(page, ui.gw.adminToken)
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Canvas" }).click()
    await page.getByRole("heading", { name: "Canvas", level: 1 }).waitFor()
    const table = page.getByRole("table", { name: "Canvas pages" })
    await table.getByRole("row").filter({ hasText: "Deploy report" }).waitFor()
    // Newest first.
    expect(await table.getByRole("row").nth(1).getByRole("cell").first().textContent()).toBe("Deploy report")
    expect(await table.getByRole("row").nth(2).getByRole("cell").first().textContent()).toBe("Plain notes")
    await screenshot(page, "canvas-list")
    await expectAccessible(page)

    await page.getByRole("button", { name: "Details of Deploy report" }).click()
    const details = page.getByRole("region", { name: "Deploy report" })
    await details.getByText(id).waitFor()
    await details.getByText("plan-42").waitFor()
    expect(await details.getByLabel("Canvas metadata").textContent()).toContain("nightly")
    await screenshot(page, "canvas-details")
    await expectAccessible(page)
    await details.getByRole("button", { name: "Close" }).click()
    await details.waitFor({ state: "detached" })
  })

  it("opens a page under its CSP: its script and inline handler do not run, its inline style applies", async () => {
    const messages: Array<string> = []
    const [opened] = await Promise.all([
      page.context().waitForEvent("page"),
      page.getByRole("link", { name: "Open Deploy report" }).first().click()
    ])
    opened.on("console", (message: ConsoleMessage) => void messages.push(message.text()))
    await opened.waitForLoadState("load")
    await opened.getByRole("heading", { name: "Deploy report", level: 1 }).waitFor()
    expect(new URL(opened.url()).pathname).toMatch(/^\/canvas\/[0-9a-f-]{36}$/)
    // The inline style is allowed (style-src 'unsafe-inline').
    expect(await opened.evaluate("getComputedStyle(document.getElementById('styled')).color")).toBe("rgb(0, 128, 0)")
    // Neither the <script> nor the onerror handler ran.
    expect(await opened.evaluate("document.body.getAttribute('data-ran')")).toBeNull()
    expect(await opened.title()).toBe("Canvas test")
    await screenshot(opened, "canvas-opened")

    // The same page fetched by the browser carries the canvas headers.
    const response = await opened.request.get(opened.url())
    expect(response.headers()["content-security-policy"]).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; font-src 'self'")
    expect(response.headers()["x-content-type-options"]).toBe("nosniff")
    expect(response.headers()["cache-control"]).toBe("no-store")
    await opened.close()
  })

  it("reports the CSP refusing the page's script (a fresh load, listened to from the start)", async () => {
    const id = await publish({ title: "Script only", content_type: "text/html", html_content: "<p>x</p><script>window.ranHere = true</script>" })
    const probe = await page.context().newPage()
    const refusals: Array<string> = []
    probe.on("console", (message: ConsoleMessage) => {
      if (/Content Security Policy/i.test(message.text())) refusals.push(message.text())
    })
    await probe.goto(`/canvas/${id}`)
    await probe.getByText("x", { exact: true }).waitFor()
    await expect.poll(() => refusals.length, POLL).toBeGreaterThan(0)
    expect(await probe.evaluate("typeof window.ranHere")).toBe("undefined")
    await probe.close()
  })

  it("loads more pages with the listing's cursor", async () => {
    for (let i = 0; i < 50; i++) await publish({ title: `Bulk ${i}`, content_type: "text/plain", html_content: `page ${i}` })
    const total = ((await readJson(await ui.gw.fetch("/canvas?limit=200", { headers: { authorization: `Bearer ${ui.gw.adminToken}` } }))) as { pages: Array<unknown> }).pages.length
    expect(total).toBe(53)
    await page.getByRole("button", { name: "Reload" }).click()
    await page.getByText("50 pages (more to load)").waitFor()
    await page.getByRole("button", { name: "Load more" }).click()
    await page.getByText("53 pages", { exact: true }).waitFor()
    await expect.poll(() => page.getByRole("table", { name: "Canvas pages" }).getByRole("row").count(), POLL).toBe(54)
    expect(await page.getByRole("button", { name: "Load more" }).count()).toBe(0)
    await screenshot(page, "canvas-all")
    await expectAccessible(page)
  })
})
