/**
 * The console's Runs and Playbooks pages in Chromium (issue 23 §2.4, §3): the
 * operator opens Playbooks, dry-runs a playbook (each step's policy decision
 * shown), starts it; the run pauses at the playbook's approval step; with the
 * run's page open in one tab, the operator approves it in the Approvals page
 * of another, and the run's page shows it complete live (steps, attempts, the
 * result as evidence). The runs list by status. A paused run cancelled from
 * its page; a paused run resumed from its page with the pause's resume token
 * (`POST /workflow/resume`, resolved by the system principal `resume_token`),
 * and one paused before the console opened through its approval; a device
 * token with operator.read only sees no actions. Screenshots and axe on the
 * list, the detail and the playbooks page.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHttpTarget, type HttpTarget } from "../support/httpTarget.ts"
import { postJson, readJson } from "../support/gateway.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole, waitLive } from "./browser.ts"

/** Http to 127.0.0.1 allowed; `approval: required` steps pause for a Confirm. */
const POLICY = `v: 1
tools:
  allow: [tool.http.fetch]
network_egress:
  allow: ["http://127.0.0.1:*"]
`

const homeWith = (target: string) => {
  const home = mkdtempSync(join(tmpdir(), "svc-ui-runs-"))
  writeFileSync(join(home, "policy.yml"), POLICY)
  mkdirSync(join(home, "playbooks", "ship"), { recursive: true })
  writeFileSync(join(home, "playbooks", "ship", "playbook.yml"), `id: ship
name: Ship a release
description: Check health, then deploy after an approval
version: "2"
steps:
  - id: check
    command: http ${target}check
  - id: deploy
    name: Deploy
    command: http POST ${target}deploy
    approval: required
`)
  return home
}

describe.skipIf(!browserAvailable)("console: runs and playbooks", () => {
  let ui: Console
  let target: HttpTarget
  let context: BrowserContext
  let page: Page
  const auth = () => ({ authorization: `Bearer ${ui.gw.adminToken}` })
  const get = async (path: string) => readJson(await ui.gw.fetch(path, { headers: auth() }))
  const runOf = async (runId: string) => (await get(`/workflow/runs/${runId}`)).run
  const startPaused = async (agent: string) => {
    const started = await postJson(ui.gw, "/workflow/run", {
      key: `agent:${agent}:main`,
      steps: [{ type: "Confirm", args: { prompt: `Hold ${agent}` } }, { type: "Http", args: { url: `${target.url}after-${agent}` } }]
    }, ui.gw.adminToken).then(readJson)
    return started.run_id as string
  }
  const runHeading = (runId: string) => page.getByRole("heading", { level: 1, name: new RegExp(`^Run ${runId}`) })

  beforeAll(async () => {
    target = await startHttpTarget(() => ({ ok: true }))
    ui = await startConsole({ home: homeWith(target.url), engineApiEnabled: true, rateLimitMax: 10_000 })
    ;({ context, page } = await ui.open())
    await signIn(page, ui.gw.adminToken)
    await waitLive(page)
  })
  afterAll(async () => {
    await ui?.close()
    await target?.close()
  })

  it("dry-runs a playbook, starts it, and watches it complete live after an approval in the Approvals page", async () => {
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Playbooks" }).click()
    await page.getByRole("heading", { level: 1, name: "Playbooks" }).waitFor()
    await page.getByRole("button", { name: "Open playbook ship" }).waitFor()
    await screenshot(page, "playbooks")
    await expectAccessible(page)

    await page.getByRole("button", { name: "Open playbook ship" }).click()
    await page.getByRole("heading", { name: "Playbook Ship a release (ship)" }).waitFor()
    await expect(page.getByRole("table", { name: "Steps of ship" }).textContent()).resolves.toContain(`http POST ${target.url}deploy`)
    // Starting comes after the dry run.
    expect(await page.getByRole("button", { name: "Start run" }).count()).toBe(0)
    await page.getByRole("button", { name: "Dry run" }).click()
    const verdicts = page.getByRole("table", { name: "Dry run of ship" })
    await verdicts.waitFor()
    const rows = verdicts.getByRole("row")
    await expect(rows.count()).resolves.toBe(4)
    await expect(rows.nth(1).textContent()).resolves.toMatch(/check.*Http: GET .*check.*allow/)
    await expect(rows.nth(2).textContent()).resolves.toMatch(/deploy:approval.*Confirm.*require_approval.*playbook_approval/)
    await expect(rows.nth(3).textContent()).resolves.toMatch(/deploy.*Http: POST .*deploy.*allow/)
    expect(target.calls).toEqual([])
    await screenshot(page, "playbook-dry-run")
    await expectAccessible(page)

    await page.getByRole("button", { name: "Start run" }).click()
    const link = page.getByRole("status").getByRole("link", { name: /^open run run-/ })
    await link.waitFor()
    const runId = ((await link.textContent()) ?? "").replace("open run ", "")
    expect((await runOf(runId)).key).toBe("cron:playbook-ship")

    await link.click()
    await runHeading(runId).waitFor()
    await expect.poll(() => runHeading(runId).textContent(), { timeout: 20_000 }).toContain("paused")
    await page.getByText("Waiting for approval").waitFor()
    await screenshot(page, "run-detail-paused")
    await expectAccessible(page)

    // The approval, in the Approvals page of a second tab (same session).
    const approvals = await context.newPage()
    let approvalId = 0
    await expect.poll(async () => {
      approvalId = (await get("/approvals?status=pending")).approvals.find((a: any) => a.scope?.run_id === runId)?.id ?? 0
      return approvalId
    }, { timeout: 20_000 }).toBeGreaterThan(0)
    await approvals.goto("/ui/approvals")
    await approvals.getByRole("button", { name: `Decide approval ${approvalId}` }).click()
    await approvals.getByRole("button", { name: "Approve once" }).click()
    // The panel closes as the approval leaves the pending list: the gateway's record tells.
    await expect.poll(async () => (await get(`/approvals/${approvalId}`)).approval.status, { timeout: 20_000 }).toBe("approved")
    await approvals.getByRole("button", { name: `Decide approval ${approvalId}` }).waitFor({ state: "detached" })
    await approvals.close()

    // The first tab follows without a reload.
    await expect.poll(() => runHeading(runId).textContent(), { timeout: 30_000 }).toContain("succeeded")
    const steps = page.getByRole("table", { name: `Steps of run ${runId}` }).getByRole("row")
    await expect.poll(async () => (await steps.allTextContents()).slice(1).map((row) => row.includes("succeeded")), { timeout: 20_000 })
      .toEqual([true, true, true])
    await page.getByRole("heading", { level: 3, name: /Step 2: Http: POST .*deploy/ }).waitFor()
    await expect(page.getByLabel("Result of attempt 1").last().textContent()).resolves.toContain("200")
    await expect(page.locator("details.attempt summary").first().textContent()).resolves.toMatch(/Attempt 1: succeeded.*policy allow/)
    expect(target.calls).toEqual(["GET /check", "POST /deploy"])
    expect((await runOf(runId)).status).toBe("succeeded")
    await screenshot(page, "run-detail")
    await expectAccessible(page)
  })

  it("lists runs by status and opens one", async () => {
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Runs" }).click()
    await page.getByRole("heading", { level: 1, name: "Runs" }).waitFor()
    const table = page.getByRole("table", { name: "All runs" })
    await table.getByRole("row").filter({ hasText: "cron:playbook-ship" }).waitFor()
    await screenshot(page, "runs")
    await expectAccessible(page)
    await page.getByLabel("Status").selectOption("succeeded")
    await page.getByRole("table", { name: "succeeded runs" }).getByRole("row").filter({ hasText: "cron:playbook-ship" }).waitFor()
    await page.getByLabel("Status").selectOption("paused")
    await page.getByText("No paused runs.").waitFor()
    await page.getByLabel("Status").selectOption("")
    await page.getByLabel("Key").fill("agent:nobody:main")
    await page.getByRole("button", { name: "Filter" }).click()
    await page.getByText("No runs for agent:nobody:main.").waitFor()
    await page.getByLabel("Key").fill("")
    await page.getByRole("button", { name: "Filter" }).click()
    await table.waitFor()
  })

  it("cancels a paused run from its page", async () => {
    const runId = await startPaused("cancelme")
    // It shows up in the open list live, and its link opens it.
    const link = page.getByRole("link", { name: runId })
    await link.click()
    await expect.poll(() => runHeading(runId).textContent(), { timeout: 20_000 }).toContain("paused")
    await page.getByLabel("Cancel reason (optional)").fill("not today")
    await page.getByRole("button", { name: "Cancel run" }).click()
    await page.getByRole("button", { name: "Yes, cancel the run" }).click()
    await page.getByRole("status").filter({ hasText: `Run ${runId} cancelled.` }).waitFor()
    await expect.poll(() => runHeading(runId).textContent(), { timeout: 20_000 }).toContain("cancelled")
    expect((await runOf(runId)).status).toBe("cancelled")
    expect(await page.getByRole("button", { name: "Cancel run" }).count()).toBe(0)
    expect(target.calls).not.toContain("GET /after-cancelme")
  })

  it("resumes a paused run from its page with the pause's resume token", async () => {
    await page.getByRole("link", { name: "← All runs" }).click()
    await page.getByRole("heading", { level: 1, name: "Runs" }).waitFor()
    const runId = await startPaused("resumeme")
    await page.getByRole("link", { name: runId }).click()
    await expect.poll(() => runHeading(runId).textContent(), { timeout: 20_000 }).toContain("paused")
    await page.getByText("Uses the resume token of this pause").waitFor()
    await page.getByRole("button", { name: "Resume run" }).click()
    await page.getByRole("status").filter({ hasText: `Run ${runId} resumed.` }).waitFor()
    await expect.poll(() => runHeading(runId).textContent(), { timeout: 30_000 }).toContain("succeeded")
    expect(target.calls).toContain("GET /after-resumeme")
    const approval = (await get("/approvals?status=approved")).approvals.find((a: any) => a.scope?.run_id === runId)
    expect(approval.resolution.resolved_by).toMatchObject({ kind: "system", principal: "resume_token" })
    // The token is not kept in any storage the page's script can read.
    const stored = await page.evaluate<string>("JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })")
    expect(stored).toBe("{}{}")
  })

  it("resumes a run paused before the console opened through its approval", async () => {
    const runId = await startPaused("latecomer")
    await expect.poll(async () => (await runOf(runId)).status, { timeout: 20_000 }).toBe("paused")
    const fresh = await ui.open()
    try {
      await signIn(fresh.page, ui.gw.adminToken)
      await fresh.page.goto(`/ui/runs/${runId}`)
      await fresh.page.getByText(/^Approves approval \d+, which this pause waits for\.$/).waitFor()
      await fresh.page.getByRole("button", { name: "Resume run" }).click()
      await fresh.page.getByRole("status").filter({ hasText: `Run ${runId} resumed (approval` }).waitFor()
      await expect.poll(async () => (await runOf(runId)).status, { timeout: 30_000 }).toBe("succeeded")
      const approval = (await get("/approvals?status=approved")).approvals.find((a: any) => a.scope?.run_id === runId)
      expect(approval.resolution).toMatchObject({ decision: "approved", reason: "resumed from the console" })
    } finally {
      await fresh.context.close()
    }
  })

  it("a device token with operator.read only sees runs and playbooks without their actions", async () => {
    const runId = await startPaused("readonly")
    const issued = await postJson(ui.gw, "/auth/device-tokens/issue", { device_id: "dev-ui-reader", role: "client", scopes: ["operator.read"] }, ui.gw.adminToken).then(readJson)
    const reader = await ui.open()
    try {
      await signIn(reader.page, issued.token)
      const nav = reader.page.getByRole("navigation", { name: "Pages" })
      expect(await nav.getByRole("link").allTextContents()).toEqual(expect.arrayContaining(["Runs", "Playbooks"]))
      await reader.page.goto(`/ui/runs/${runId}`)
      await expect.poll(() => reader.page.getByRole("heading", { level: 1 }).textContent(), { timeout: 20_000 }).toContain("paused")
      await reader.page.getByRole("table", { name: `Steps of run ${runId}` }).waitFor()
      expect(await reader.page.getByRole("button", { name: "Resume run" }).count()).toBe(0)
      expect(await reader.page.getByRole("button", { name: "Cancel run" }).count()).toBe(0)
      await nav.getByRole("link", { name: "Playbooks" }).click()
      await reader.page.getByRole("button", { name: "Open playbook ship" }).click()
      await reader.page.getByText("Dry runs and starting runs need the operator.write scope.").waitFor()
      expect(await reader.page.getByRole("button", { name: "Dry run" }).count()).toBe(0)
      await expectAccessible(reader.page)
    } finally {
      await reader.context.close()
      await postJson(ui.gw, "/workflow/cancel", { run_id: runId }, ui.gw.adminToken)
    }
  })
})
