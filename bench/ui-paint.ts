/**
 * `npm run bench:ui` (also the last part of `npm run bench`): the operator
 * console's first paint of the approvals page with 1,000 pending approvals
 * (issue 23 §1: ≤ 1 s on this machine's Chromium), side by side with the
 * least a plain page can do for the same work: one static HTML page whose
 * plain script fetches the same `GET /approvals?status=pending` and writes
 * the first 50 rows. Both are measured in one run from navigation start until
 * the first approval row is in the DOM (a MutationObserver mark, so no poll
 * interval counts). The console's JavaScript budget (dist/ui/budget.json) is
 * printed next to it. Writes bench/results/ui-latest.md.
 *
 * Environment: BENCH_UI_APPROVALS (default 1000), BENCH_UI_ROUNDS (default 7),
 * SVC_CHROMIUM (default /usr/bin/chromium).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { chromium, type Page } from "playwright-core"
import { freePort, startServer } from "./processes.ts"
import { BENCH_ADMIN_TOKEN, gatewayEnv } from "./sample.ts"

const count = Number(process.env.BENCH_UI_APPROVALS ?? 1000)
const rounds = Number(process.env.BENCH_UI_ROUNDS ?? 7)
const distRoot = fileURLToPath(new URL("../", import.meta.url))
const resultsDir = fileURLToPath(new URL("../../bench/results/", import.meta.url))

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

// Marks the first time an element matching the selector appears, in ms since navigation start.
const MARK_FIRST_ROW = (selector: string) => `
  new MutationObserver((_, observer) => {
    if (document.querySelector(${JSON.stringify(selector)})) { window.__firstRow = performance.now(); observer.disconnect() }
  }).observe(document, { childList: true, subtree: true })`

const firstRowMs = async (page: Page, url: string, selector: string): Promise<number> => {
  await page.goto(url, { waitUntil: "commit" })
  await page.locator(selector).first().waitFor({ timeout: 30_000 })
  return page.evaluate<number>("window.__firstRow")
}

// The plain page: static HTML whose script fetches the same list (passed through from the gateway) and writes 50 rows.
const PLAIN_PAGE = `<!doctype html><meta charset="utf-8"><title>plain</title><table id="t"></table>
<script type="module">
const res = await fetch("/approvals.json")
const { approvals } = await res.json()
const t = document.getElementById("t")
for (const a of approvals.slice(0, 50)) {
  const tr = document.createElement("tr")
  tr.className = "row"
  for (const v of [a.id, a.kind, a.prompt, a.plan_id, a.expires_at]) { const td = document.createElement("td"); td.textContent = String(v); tr.append(td) }
  t.append(tr)
}
</script>`

const main = async () => {
  const home = mkdtempSync(join(tmpdir(), "svc-bench-ui-"))
  const port = await freePort()
  const gateway = await startServer({
    name: "gateway",
    script: join(distRoot, "cli", "main.mjs"),
    args: ["serve"],
    port,
    env: { ...gatewayEnv(port, home), SVC_APPROVAL_TTL_S: "86400" }
  })
  const plainPort = await freePort()
  const plain = createServer((req, res) => {
    if (req.url !== "/approvals.json") return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PLAIN_PAGE)
    fetch(`${gateway.url}/approvals?status=pending`, { headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` } })
      .then((upstream) => upstream.text())
      .then((body) => res.writeHead(200, { "content-type": "application/json" }).end(body), () => res.writeHead(502).end())
  }).listen(plainPort, "127.0.0.1")
  const browser = await chromium.launch({ executablePath: process.env.SVC_CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] })
  try {
    for (let i = 0; i < count; i++) {
      const res = await fetch(`${gateway.url}/plan`, {
        method: "POST",
        headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ request_id: `bench-ui-${i}`, trigger: { channel: "web", thread_id: "bench", message: { text: "Buy the conference ticket" } }, tags: ["spend:25000:USD:Conf_Inc", "pii:none", "legal:none"] })
      })
      if (res.status !== 200) throw new Error(`POST /plan answered ${res.status}: ${await res.text()}`)
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    await context.addInitScript(MARK_FIRST_ROW("table.list tbody tr, table#t tr.row"))
    const page = await context.newPage()
    await page.goto(`${gateway.url}/ui`)
    await page.getByLabel("Token").fill(BENCH_ADMIN_TOKEN)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.locator("table.list tbody tr").first().waitFor()
    const consoleMs: Array<number> = []
    const plainMs: Array<number> = []
    for (let r = 0; r < rounds; r++) {
      consoleMs.push(await firstRowMs(page, `${gateway.url}/ui/approvals`, "table.list tbody tr"))
      plainMs.push(await firstRowMs(page, `http://127.0.0.1:${plainPort}/`, "table#t tr.row"))
    }
    const budget = JSON.parse(readFileSync(join(distRoot, "..", "dist", "ui", "budget.json"), "utf8"))
    const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`
    const lines = [
      `# Operator console: first paint of the approvals page (${new Date().toISOString()})`,
      "",
      `${count} pending approvals, Chromium ${browser.version()}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${rounds} alternated rounds (median, min–max).`,
      "From navigation start until the first approval row is in the DOM.",
      "",
      "| target | first row, ms | min–max |",
      "|---|---:|---|",
      `| console (/ui/approvals, signed in) | ${median(consoleMs).toFixed(0)} | ${Math.min(...consoleMs).toFixed(0)}–${Math.max(...consoleMs).toFixed(0)} |`,
      `| plain page (fetch + 50 rows) | ${median(plainMs).toFixed(0)} | ${Math.min(...plainMs).toFixed(0)}–${Math.max(...plainMs).toFixed(0)} |`,
      "",
      `Console ÷ plain: **${(median(consoleMs) / median(plainMs)).toFixed(2)}×**; target ≤ 1,000 ms: **${median(consoleMs) <= 1000 ? "met" : "not met"}**.`,
      "",
      `JavaScript (gzipped): initial ${kib(budget.initial_with_start_page.gzip_bytes)} (budget ${kib(budget.budget_gzip_bytes)}), shell ${kib(budget.shell.gzip_bytes)}, every page ${kib(budget.all_javascript.gzip_bytes)}.`,
      ""
    ]
    console.log(lines.join("\n"))
    mkdirSync(resultsDir, { recursive: true })
    writeFileSync(join(resultsDir, "ui-latest.md"), lines.join("\n"))
  } finally {
    await browser.close()
    plain.close()
    await gateway.stop()
    rmSync(home, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
