/**
 * The console's sign-in and approvals page in Chromium (issue 23 §2.1, §2.2,
 * §3): sign in with the admin token (cookie, never stored by script), an
 * approval raised by `POST /plan` shows at once, approve once; a workflow
 * run's policy pause approved always with its suggested override; deny with a
 * reason; resolved ones by status; sign out; axe on each page.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHttpTarget, type HttpTarget } from "../support/httpTarget.ts"
import { postJson, readJson } from "../support/gateway.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole, waitLive } from "./browser.ts"

const homeWithPolicy = (policy: string) => {
  const home = mkdtempSync(join(tmpdir(), "svc-ui-"))
  writeFileSync(join(home, "policy.yml"), policy)
  return home
}

describe.skipIf(!browserAvailable)("console: sign-in and approvals", () => {
  let ui: Console
  let upstream: HttpTarget
  let page: Page
  const auth = () => ({ authorization: `Bearer ${ui.gw.adminToken}` })
  const get = async (path: string) => readJson(await ui.gw.fetch(path, { headers: auth() }))
  const plan = (amount: number) =>
    postJson(ui.gw, "/plan", {
      request_id: `ui-${amount}-${Math.random().toString(36).slice(2)}`,
      trigger: { channel: "web", thread_id: "ui", message: { text: "Buy the conference ticket" } },
      tags: [`spend:${amount}:USD:Conf_Inc`, "pii:none", "legal:none"]
    }, ui.gw.adminToken).then(readJson)
  const row = (id: number) => page.getByRole("row").filter({ has: page.getByRole("button", { name: new RegExp(`^(Decide|Details) approval ${id}$`) }) })

  beforeAll(async () => {
    upstream = await startHttpTarget(() => ({}))
    ui = await startConsole({
      home: homeWithPolicy(`v: 1\nnetwork_egress:\n  allow: ["http://127.0.0.1:*"]\n`),
      engineApiEnabled: true,
      rateLimitMax: 10_000
    })
    page = (await ui.open()).page
  })
  afterAll(async () => {
    await ui?.close()
    await upstream?.close()
  })

  it("signs in with the admin token into an HttpOnly cookie; script keeps no token", async () => {
    await page.goto("/ui")
    await page.getByLabel("Token").waitFor()
    await screenshot(page, "sign-in")
    await expectAccessible(page)
    await page.getByLabel("Token").fill("not-the-token")
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect(page.getByRole("alert").textContent()).resolves.toContain("401")
    await signIn(page, ui.gw.adminToken)
    await waitLive(page)
    expect(page.url()).toMatch(/\/ui\/approvals$/)
    const cookies = await page.context().cookies()
    expect(cookies.find((c) => c.name === "svc_admin_token")).toMatchObject({ httpOnly: true, sameSite: "Strict" })
    const stored = await page.evaluate<string>("JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })")
    expect(stored).not.toContain(ui.gw.adminToken)
    expect(await page.evaluate("document.cookie")).not.toContain("svc_admin_token")
  })

  it("shows an approval raised while the page is open and approves it once", async () => {
    const planned = await plan(25_000)
    const id: number = planned.escalation.approval_id
    await row(id).waitFor()
    await expect(row(id).textContent()).resolves.toContain("spend")
    await screenshot(page, "approvals")
    await expectAccessible(page)
    await row(id).getByRole("button").click()
    await page.getByRole("heading", { name: `Approval ${id} (spend, pending)` }).waitFor()
    await page.getByLabel("Reason (optional)").fill("budgeted")
    await page.getByRole("button", { name: "Approve once" }).click()
    await page.getByRole("status").filter({ hasText: `Approval ${id} approved` }).waitFor()
    expect((await get(`/approvals/${id}`)).approval).toMatchObject({ status: "approved", resolution: { decision: "approved", reason: "budgeted" } })
    await row(id).waitFor({ state: "detached" })
  })

  it("approves a workflow pause always, creating the suggested override", async () => {
    const started = await postJson(ui.gw, "/workflow/run", { key: "agent:ui:main", steps: [{ type: "Http", args: { url: `${upstream.url}always` } }] }, ui.gw.adminToken).then(readJson)
    const runId: string = started.run_id
    let approvalId = 0
    await expect.poll(async () => {
      const pending = (await get("/approvals?status=pending")).approvals
      approvalId = pending.find((a: any) => a.scope?.run_id === runId)?.id ?? 0
      return approvalId
    }, { timeout: 20_000 }).toBeGreaterThan(0)
    await row(approvalId).getByRole("button").click()
    await expect(page.getByRole("group", { name: 'Overrides for "approve always"' }).textContent()).resolves.toContain("tool.http.fetch")
    await screenshot(page, "approval-always")
    await page.getByRole("button", { name: "Approve always" }).click()
    await page.getByRole("status").filter({ hasText: "1 override(s) created" }).waitFor()
    const overrides = (await get("/policy/overrides?status=active")).overrides
    expect(overrides).toEqual(expect.arrayContaining([expect.objectContaining({ tool_id: "tool.http.fetch", created_from_approval_id: approvalId })]))
    await expect.poll(async () => (await get(`/workflow/runs/${runId}`)).run?.status, { timeout: 20_000 }).toBe("succeeded")
  })

  it("denies with a reason and finds resolved approvals by status", async () => {
    const id: number = (await plan(30_000)).escalation.approval_id
    await row(id).getByRole("button").click()
    await page.getByLabel("Reason (optional)").fill("not this month")
    await page.getByRole("button", { name: "Deny" }).click()
    await page.getByRole("status").filter({ hasText: `Approval ${id} denied` }).waitFor()
    await page.getByLabel("Status").selectOption("denied")
    await row(id).waitFor()
    await expect(row(id).textContent()).resolves.toContain("not this month")
    await page.getByLabel("Search").fill("no such approval anywhere")
    await page.getByText("No denied approvals.").waitFor()
  })

  it("signs out: the cookie is cleared and the sign-in form is back", async () => {
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByLabel("Token").waitFor()
    expect((await page.context().cookies()).find((c) => c.name === "svc_admin_token")).toBeUndefined()
    await page.goto("/ui/approvals")
    await page.getByLabel("Token").waitFor()
  })
})
