/**
 * A run's artifacts in the console (issue 24 §6) against a real gateway: a
 * workflow with an Http step to a local server stores the answer as an
 * `http_trace` artifact; the run's page lists it under its attempt (kind,
 * type, size, labels) and downloads it with the keyboard through the
 * run-scoped route `GET /runs/:runId/artifacts/:id` on the session cookie;
 * the same artifact through another run is refused (404) and through the
 * unscoped route too (400). Screenshot and axe on the run's page.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson } from "../support/gateway.ts"
import { type HttpTarget, startHttpTarget } from "../support/httpTarget.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole, waitLive } from "./browser.ts"

const POLICY = `v: 1
tools:
  allow: [tool.http.fetch]
network_egress:
  allow: ["http://127.0.0.1:*"]
artifacts:
  default: allow
`

describe.skipIf(!browserAvailable)("console: run artifacts", () => {
  let ui: Console
  let target: HttpTarget
  let page: Page
  const get = async (path: string) => readJson(await ui.gw.fetch(path, { headers: { authorization: `Bearer ${ui.gw.adminToken}` } }))
  /** Runs one Http step to `path` of the target and waits for it to succeed; answers the run id and its artifact ref. */
  const runHttp = async (path: string) => {
    const started = await postJson(ui.gw, "/workflow/run", {
      key: "agent:default:main",
      steps: [{ type: "Http", args: { method: "GET", url: `${target.url}${path}` } }]
    }, ui.gw.adminToken).then(readJson)
    const runId = started.run_id as string
    await eventually(async () => (await get(`/workflow/runs/${runId}`)).run?.status === "succeeded", "run succeeded", 30_000)
    const attempt = (await get(`/workflow/runs/${runId}`)).steps[0].attempts[0]
    return { runId, ref: attempt.artifacts[0] as { artifact_id: string; kind: string; size_bytes: number } }
  }

  beforeAll(async () => {
    target = await startHttpTarget((n) => ({ n, ok: true }))
    const home = mkdtempSync(join(tmpdir(), "svc-ui-artifacts-"))
    writeFileSync(join(home, "policy.yml"), POLICY)
    ui = await startConsole({ home, engineApiEnabled: true, rateLimitMax: 10_000 })
    page = (await ui.open()).page
    await signIn(page, ui.gw.adminToken)
    await waitLive(page)
  })
  afterAll(async () => {
    await ui?.close()
    await target?.close()
  })

  it("lists an Http step's http_trace on the run's page and downloads it through the run", async () => {
    const first = await runHttp("status")
    const other = await runHttp("other")
    expect(first.ref.kind).toBe("http_trace")

    await page.goto(`/ui/runs/${first.runId}`)
    await page.getByRole("heading", { level: 1, name: new RegExp(`^Run ${first.runId}.*succeeded`) }).waitFor()
    const table = page.getByRole("table", { name: "Artifacts of attempt 1" })
    const row = table.getByRole("row").nth(1)
    await row.waitFor()
    const cells = await row.getByRole("cell").allTextContents()
    expect(cells.slice(0, 4)).toEqual(["http_trace", "application/json", `${first.ref.size_bytes} bytes`, "http"])
    const link = row.getByRole("link", { name: `Download http_trace ${first.ref.artifact_id}` })
    expect(await link.getAttribute("href")).toBe(`/runs/${first.runId}/artifacts/${first.ref.artifact_id}`)
    await screenshot(page, "run-artifacts")
    await expectAccessible(page)

    // With the keyboard: focus the link, Enter.
    await link.focus()
    const [download] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")])
    expect(download.suggestedFilename()).toBe(`http_trace-${first.ref.artifact_id}.json`)
    const trace = JSON.parse(readFileSync((await download.path())!, "utf8"))
    expect(trace.request).toEqual({ method: "GET", url: `${target.url}status` })
    expect(trace.response).toMatchObject({ status: 200, body: { ok: true } })

    // The browser's session reaches the artifact only through its own run.
    const own = await page.request.get(`/runs/${first.runId}/artifacts/${first.ref.artifact_id}`)
    expect(own.status()).toBe(200)
    expect(own.headers()["cache-control"]).toBe("no-store")
    expect((await page.request.get(`/runs/${other.runId}/artifacts/${first.ref.artifact_id}`)).status()).toBe(404)
    expect((await page.request.get(`/artifacts/${first.ref.artifact_id}`)).status()).toBe(400)

    // The other run's page lists its own artifact, not the first one's.
    await page.goto(`/ui/runs/${other.runId}`)
    const otherLink = page.getByRole("link", { name: /^Download http_trace / })
    await otherLink.waitFor()
    expect(await otherLink.getAttribute("href")).toBe(`/runs/${other.runId}/artifacts/${other.ref.artifact_id}`)
  }, 120_000)
})
