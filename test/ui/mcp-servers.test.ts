/**
 * The console's MCP servers panel on the Agent chat page (issue 26 §4; docs/ui.md) in Chromium, against a real
 * gateway whose `mcp.yml` names the fixture stdio server (test/fixtures/mcp/stdioServer.ts), a server whose command
 * exits at once, and an entry with an unknown field: the first shows `ready` with its tools, the second `failed` with
 * its last error and next attempt, the third is listed under the problems with its line. axe on that state. Killed,
 * the fixture turns `failed` in the panel without a reload, and `ready` again once retried.
 */
import type { Page } from "playwright-core"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { agentHome } from "../support/agentHome.ts"
import { bundleMcpFixture } from "../support/mcpFixture.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole, waitLive } from "./browser.ts"

describe.skipIf(!browserAvailable)("console: MCP servers", () => {
  let ui: Console
  let page: Page
  let fixture: string
  let home: string
  const pidFile = () => join(home, "fx.pid")
  const refuseFile = () => join(home, "fx.refuse")
  const status = (name: string, text: string) => row(name).getByText(text, { exact: true })
  const row = (name: string) => page.getByRole("table", { name: "MCP servers" }).getByRole("row").filter({ hasText: name })

  beforeAll(async () => {
    fixture = await bundleMcpFixture()
    home = agentHome(["v: 1", "tools:", "  default: require_approval", "  allow: [mcp.fx.*]"], { default: ["turns:", "  - reply: Hi."] })
    writeFileSync(join(home, "mcp.yml"), [
      "servers:",
      "  fx:",
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(fixture)}]`,
      `    env: {MCP_FIXTURE_PID: ${JSON.stringify(pidFile())}, MCP_FIXTURE_REFUSE: ${JSON.stringify(refuseFile())}}`,
      "  broken:",
      `    command: ${JSON.stringify(process.execPath)}`,
      "    args: [-e, process.exit(3)]",
      "  odd:",
      "    url: http://127.0.0.1:9/mcp",
      "    colour: blue",
      ""
    ].join("\n"))
    ui = await startConsole({ agentEnabled: true, agentModel: "builtin/scripted", home, rateLimitMax: 10_000 })
    page = (await ui.open()).page
    await signIn(page, ui.gw.adminToken)
    await waitLive(page)
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Agent chat" }).click()
    await page.getByRole("heading", { name: "Agent chat", level: 1 }).waitFor()
  }, 90_000)
  afterAll(async () => {
    await ui?.close()
    if (fixture !== undefined) rmSync(fixture, { force: true })
  })

  it("lists each server with its health and tools, and the problems of mcp.yml", async () => {
    const panel = page.getByRole("region", { name: "MCP servers" })
    await status("fx", "ready").waitFor()
    expect(await row("fx").textContent()).toContain("mcp_fx_echo")
    expect(await row("fx").textContent()).toContain("stdio · mcp.yml")
    await status("broken", "failed").waitFor()
    expect(await row("broken").textContent()).toMatch(/retry at \d{4}-/)
    const problems = panel.getByRole("list", { name: "Problems in mcp.yml" })
    expect(await problems.textContent()).toContain("line 11: servers.odd.colour: unexpected field")
    await screenshot(page, "agent-mcp-servers")
    await expectAccessible(page)
  }, 60_000)

  it("shows a killed server as failed, then ready again, without a reload", async () => {
    await status("fx", "ready").waitFor()
    // It cannot start again until the file is gone: the panel (reloaded every 5 s) sees it failed.
    writeFileSync(refuseFile(), "")
    process.kill(Number(readFileSync(pidFile(), "utf8")), "SIGKILL")
    await status("fx", "failed").waitFor()
    expect(await row("fx").textContent()).toContain("none")
    rmSync(refuseFile())
    await status("fx", "ready").waitFor({ timeout: 45_000 })
  }, 90_000)
})
