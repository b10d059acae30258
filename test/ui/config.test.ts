/**
 * The console's admin configuration pages in Chromium (issue 23 §2.5, §3):
 *
 * - Routing: an invalid configuration (an unknown key, text that is not JSON)
 *   is refused in the browser with the gateway's own message and Save stays
 *   disabled; a valid one is saved as a new revision that the history (the
 *   `gateway.routing` audit chain) shows; revert to the previous revision; a
 *   revision stored elsewhere shows live.
 * - Watchers: create a webhook watcher, see a signed delivery's firing arrive
 *   live, pause it (it stays listed, its webhook answers 404) and resume it.
 * - Snapshots: export → a JSON file is downloaded, holding the bundle.
 * - Audit: a plan raised by `POST /plan`; export its chain, verify it, download
 *   it; an approval of the plan resolved meanwhile shows in the chain.
 *
 * Screenshots of each page and axe on each page state.
 */
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signWebhook } from "../../services/watchers/webhook/signature.ts"
import { postJson, readJson } from "../support/gateway.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole, waitLive } from "./browser.ts"

const SECRET = `whsec-${randomUUID()}`

describe.skipIf(!browserAvailable)("console: routing, watchers, snapshots, audit", () => {
  let ui: Console
  let page: Page
  const auth = () => ({ authorization: `Bearer ${ui.gw.adminToken}` })
  const get = async (path: string) => readJson(await ui.gw.fetch(path, { headers: auth() }))
  const send = async (method: string, path: string, body: unknown) =>
    readJson(await ui.gw.fetch(path, { method, headers: { ...auth(), "content-type": "application/json" }, body: JSON.stringify(body) }))
  const open = async (title: string, heading: string) => {
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: title }).click()
    await page.getByRole("heading", { level: 1, name: heading }).waitFor()
  }
  const status = (text: string | RegExp) => page.getByRole("status").filter({ hasText: text })

  beforeAll(async () => {
    ui = await startConsole({ rateLimitMax: 10_000 })
    page = (await ui.open()).page
    await signIn(page, ui.gw.adminToken)
    await waitLive(page)
  })
  afterAll(async () => {
    await ui?.close()
  })

  describe("routing configuration", () => {
    const editor = () => page.getByLabel("Configuration (JSON)")
    const save = () => page.getByRole("button", { name: "Save" })
    const history = () => page.getByRole("table", { name: "Routing configuration revisions" })
    const saveConfig = async (config: unknown, reason: string): Promise<number> => {
      await editor().fill(JSON.stringify(config, null, 2))
      await page.getByLabel("Reason (optional)").fill(reason)
      await page.getByText("Valid configuration.").waitFor()
      await save().click()
      const saved = status(/^Saved as revision \d+\.$/)
      await saved.waitFor()
      return Number((await saved.textContent())!.match(/\d+/)![0])
    }

    it("refuses an invalid configuration in the browser: the issue is shown and Save is disabled", async () => {
      await open("Routing", "Routing configuration")
      await page.getByText("No revision stored yet").waitFor()
      expect(await save().isDisabled()).toBe(true)
      await screenshot(page, "routing")
      await expectAccessible(page)

      await editor().fill(JSON.stringify({ v: 1, messenger: { default_agent_id: "support", bogus: true } }))
      await page.getByText("config.messenger.bogus: unexpected field").waitFor()
      expect(await save().isDisabled()).toBe(true)
      expect(await editor().getAttribute("aria-invalid")).toBe("true")
      await screenshot(page, "routing-invalid")
      await expectAccessible(page)

      await editor().fill(JSON.stringify({ v: 2 }))
      await page.getByText("config.v: expected 1, got 2").waitFor()
      expect(await save().isDisabled()).toBe(true)
      await editor().fill("{\"v\": 1,")
      await page.getByText(/^config: malformed JSON/).waitFor()
      expect(await save().isDisabled()).toBe(true)
      // Nothing reached the gateway.
      expect((await get("/routing/config")).revision).toBe(0)
    })

    it("saves a valid configuration as a new revision shown in the history, and reverts to the previous one", async () => {
      const first = { v: 1, messenger: { default_agent_id: "support", threads: { "telegram:42": "ops" } } }
      const r1 = await saveConfig(first, "route the support chat")
      expect(await get("/routing/config")).toMatchObject({ revision: r1, config: first, reason: "route the support chat", created_by: { kind: "admin" } })
      await history().getByRole("row").filter({ hasText: "route the support chat" }).waitFor()

      const second = { v: 1, messenger: { default_agent_id: "night" } }
      const r2 = await saveConfig(second, "night shift")
      expect(r2).toBeGreaterThan(r1)
      expect((await get("/routing/config")).config).toEqual(second)
      await history().getByRole("row").filter({ hasText: "night shift" }).filter({ hasText: "in force" }).waitFor()

      await page.getByRole("button", { name: `Revert to revision ${r1}` }).click()
      const reverted = status(new RegExp(`^Revision ${r1} restored as revision (\\d+)\\.$`))
      await reverted.waitFor()
      const r3 = Number((await reverted.textContent())!.match(/as revision (\d+)/)![1])
      expect(await get("/routing/config")).toMatchObject({ revision: r3, config: first, reverted_from_revision: r1 })
      await history().getByRole("row").filter({ hasText: `(revert of ${r1})` }).waitFor()
      expect(JSON.parse(await editor().inputValue())).toEqual(first)
      await page.getByText("Audit chain gateway.routing verified (3 events).").waitFor()
      await screenshot(page, "routing-history")
      await expectAccessible(page)
    })

    it("shows a revision stored elsewhere at once (routing.config.updated)", async () => {
      const stored = await send("PUT", "/routing/config", { config: { v: 1 }, reason: "from the API" })
      await history().getByRole("row").filter({ hasText: "from the API" }).filter({ hasText: "in force" }).waitFor()
      await expect.poll(() => page.locator("dl.facts dd").first().textContent()).toBe(String(stored.revision))
      expect(JSON.parse(await editor().inputValue())).toEqual({ v: 1 })
    })
  })

  describe("watchers", () => {
    let handle: string
    let id: number
    const deliver = async (watcherId: number) => {
      const body = JSON.stringify({ event: "deploy", ref: "main" })
      const timestamp = String(Date.now())
      const nonce = randomUUID()
      const res = await postJson(ui.gw, `/watchers/${watcherId}/trigger/webhook`, body, ui.gw.adminToken, {
        "x-svc-webhook-signature": signWebhook(SECRET, timestamp, nonce, body),
        "x-svc-webhook-timestamp": timestamp,
        "x-svc-webhook-nonce": nonce
      })
      return { status: res.status, body: await readJson(res) }
    }
    const row = () => page.getByRole("table", { name: "Watchers" }).getByRole("row").filter({ has: page.getByRole("link", { name: `Firings of watcher ${id}` }) })

    beforeAll(async () => {
      const stored = await readJson(await postJson(ui.gw, "/secrets", { scope: "webhook:ui", value: SECRET }, ui.gw.adminToken))
      handle = stored.handle.handle_id
    })

    it("creates a webhook watcher and shows a delivery's firing live", async () => {
      await open("Watchers", "Watchers")
      await page.getByLabel("Plan id").fill("plan-ui-hook")
      await page.getByLabel("Trigger").selectOption("webhook")
      await page.getByLabel("Secret handle").fill(handle)
      await screenshot(page, "watchers-new")
      await expectAccessible(page)
      await page.getByRole("button", { name: "Create watcher" }).click()
      const created = status(/^Watcher \d+ created for plan-ui-hook\.$/)
      await created.waitFor()
      id = Number((await created.textContent())!.match(/\d+/)![0])
      expect((await get("/watchers")).watchers).toContainEqual(expect.objectContaining({
        id,
        plan_id: "plan-ui-hook",
        trigger_type: "webhook",
        active: true,
        trigger_config: expect.objectContaining({ secret_handle: handle })
      }))
      await expect(row().textContent()).resolves.toContain("active")

      await row().getByRole("link", { name: `Firings of watcher ${id}` }).click()
      await page.getByRole("heading", { name: `Firings of watcher ${id}` }).waitFor()
      await page.getByText("No firings yet.").waitFor()
      const fired = await deliver(id)
      expect(fired.status).toBe(200)
      const firings = page.getByRole("table", { name: `Firings of watcher ${id}` })
      await firings.getByRole("row").filter({ hasText: "recorded" }).filter({ hasText: "webhook nonce" }).waitFor()
      expect((await get(`/watchers/${id}/firings`)).firings).toEqual([expect.objectContaining({ firing_id: fired.body.firing_id, status: "recorded" })])
      await screenshot(page, "watchers-firings")
      await expectAccessible(page)
    })

    it("pauses the watcher (it stays listed; its webhook answers 404) and resumes it", async () => {
      await row().getByRole("button", { name: `Pause watcher ${id}` }).click()
      await status(`Watcher ${id} paused.`).waitFor()
      await row().getByRole("button", { name: `Resume watcher ${id}` }).waitFor()
      await expect(row().textContent()).resolves.toContain("paused")
      expect((await get("/watchers?state=inactive")).watchers).toContainEqual(expect.objectContaining({ id, active: false }))
      expect((await deliver(id)).status).toBe(404)
      await expectAccessible(page)

      await row().getByRole("button", { name: `Resume watcher ${id}` }).click()
      await status(`Watcher ${id} resumed.`).waitFor()
      await row().getByRole("button", { name: `Pause watcher ${id}` }).waitFor()
      expect((await get("/watchers")).watchers).toContainEqual(expect.objectContaining({ id, active: true }))
      expect((await deliver(id)).status).toBe(200)
      await page.getByRole("table", { name: `Firings of watcher ${id}` }).getByRole("row").filter({ hasText: "recorded" }).nth(1).waitFor()
    })
  })

  describe("snapshots", () => {
    it("exports a snapshot and downloads it as a JSON file", async () => {
      await open("Snapshots", "Snapshots")
      await screenshot(page, "snapshots")
      await expectAccessible(page)
      await page.getByLabel("Tables (optional, comma-separated)").fill("routing_configs, watchers")
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "Export and download" }).click()
      ])
      expect(download.suggestedFilename()).toMatch(/^svc-snapshot-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.json$/)
      const bundle = JSON.parse(readFileSync((await download.path())!, "utf8"))
      expect(bundle).toMatchObject({ format: "svc.snapshot.v2", db_kind: "sqlite" })
      expect(Object.keys(bundle.tables).sort()).toEqual(["routing_configs", "watchers"])
      const revisions = (await get("/snapshot/export?tables=routing_configs")).tables.routing_configs.rows.length
      expect(bundle.tables.routing_configs.rows).toHaveLength(revisions)
      await status(`Downloaded ${download.suggestedFilename()}.`).waitFor()
      const tables = page.getByRole("table", { name: "Exported tables" })
      await expect(tables.getByRole("row").filter({ hasText: "routing_configs" }).textContent()).resolves.toContain(String(revisions))
      await screenshot(page, "snapshots-exported")
      await expectAccessible(page)
    })

    it("explains a refused export (an unknown table)", async () => {
      await page.getByLabel("Tables (optional, comma-separated)").fill("no_such_table")
      await page.getByRole("button", { name: "Export and download" }).click()
      await page.getByRole("alert").filter({ hasText: "400" }).waitFor()
    })
  })

  describe("audit", () => {
    it("exports a plan's chain, verifies it and downloads it; the chain follows the plan's approval", async () => {
      const planned = await readJson(await postJson(ui.gw, "/plan", {
        request_id: `ui-audit-${randomUUID()}`,
        trigger: { channel: "telegram", thread_id: "ui-audit", message: { text: "Book the conference" } },
        tags: ["spend:25000:USD:Conf_Inc", "pii:none", "legal:none"]
      }, ui.gw.adminToken))
      const planId: string = planned.plan_id
      const approvalId: number = planned.escalation.approval_id

      await open("Audit", "Audit")
      await page.getByLabel("Plan id or chain").fill(planId)
      await page.getByRole("button", { name: "Export chain" }).click()
      await page.getByRole("heading", { name: `Chain ${planId}` }).waitFor()
      expect(page.url()).toMatch(new RegExp(`/ui/audit\\?chain=${planId}$`))
      const events = page.getByRole("table", { name: `Events of chain ${planId}` })
      for (const type of ["policy.checked", "plan.created", "approval.requested"]) await events.getByRole("row").filter({ hasText: type }).waitFor()
      const exported = await get(`/audit/export/${planId}`)
      await page.getByText(`Verified by the gateway on export: valid (${exported.events.length} events checked).`).waitFor()
      await screenshot(page, "audit")
      await expectAccessible(page)

      await page.getByRole("button", { name: "Verify chain" }).click()
      await status(`Verification: valid (${exported.events.length} events checked).`).waitFor()
      expect(await send("POST", "/audit/verify", { events: exported.events })).toEqual({
        valid: true,
        checked_count: exported.events.length,
        broken_at_index: null,
        broken_at_id: null
      })
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download" }).click()])
      expect(download.suggestedFilename()).toMatch(new RegExp(`^audit-${planId}-.*\\.json$`))
      const file = JSON.parse(readFileSync((await download.path())!, "utf8"))
      expect(file.events).toEqual(exported.events)
      await screenshot(page, "audit-verified")
      await expectAccessible(page)

      // The plan's approval resolved elsewhere: its event joins the chain on the page; the earlier verification no longer applies.
      await send("POST", `/approvals/${approvalId}/respond`, { decision: "approved", reason: "audited" })
      await events.getByRole("row").filter({ hasText: "approval.approved" }).waitFor()
      await page.getByText(/^Verification: valid/).waitFor({ state: "detached" })
      await page.getByRole("button", { name: "Verify chain" }).click()
      await status(`Verification: valid (${exported.events.length + 1} events checked).`).waitFor()
    })

    it("opens a gateway-wide chain from its address", async () => {
      await page.goto("/ui/audit?chain=gateway.routing")
      await page.getByRole("heading", { name: "Chain gateway.routing" }).waitFor()
      await page.getByRole("table", { name: "Events of chain gateway.routing" }).getByRole("row").filter({ hasText: "routing.config.updated" }).first().waitFor()
      expect(await page.getByLabel("Plan id or chain").inputValue()).toBe("gateway.routing")
    })

    it("explains a chain without events (404)", async () => {
      await page.getByLabel("Plan id or chain").fill("plan-that-never-was")
      await page.getByRole("button", { name: "Export chain" }).click()
      await page.getByRole("alert").filter({ hasText: "no audit events for plan-that-never-was" }).waitFor()
    })
  })
})
