/**
 * The console's Plugins page in Chromium (issue 26 §4) against a real
 * gateway with plugins on: the example plugin is shown with its
 * contributions (the tool with its policy tool id, the command, the route
 * with its scope), its permissions, its integrity (verified against its lock)
 * and its worker; the directories that did not load are listed with their
 * reason, file and line. A gateway with plugins off says how to turn them on.
 * Screenshots and axe on each state.
 */
import { chmodSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { installEcho, manifest, writePlugin } from "../support/pluginHome.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole, waitLive } from "./browser.ts"

describe.skipIf(!browserAvailable)("console: plugins", () => {
  let ui: Console
  let page: Page
  let home: string

  const openPlugins = async (p: Page) => {
    await p.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Plugins" }).click()
    await p.getByRole("heading", { name: "Plugins", level: 1 }).waitFor()
  }

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "svc-ui-plugins-"))
    installEcho(home)
    await writePlugin(home, "broken", { "plugin.yml": manifest("broken", ["colour: blue"]) }, { locked: false })
    const open = await writePlugin(home, "open", { "plugin.yml": manifest("open") })
    chmodSync(open, 0o777)
    ui = await startConsole({ pluginsEnabled: true, home, rateLimitMax: 10_000 })
    page = (await ui.open()).page
    await signIn(page, ui.gw.adminToken)
    await waitLive(page)
    await openPlugins(page)
  })
  afterAll(async () => {
    chmodSync(join(home, "plugins", "open"), 0o755)
    await ui?.close()
  })

  it("shows the loaded plugin's contributions, permissions, integrity and worker", async () => {
    const card = page.getByRole("article", { name: /Echo/ })
    await card.waitFor()
    await page.getByText("1 loaded, 2 not loaded").waitFor()
    const contributions = card.getByRole("table", { name: "Contributions of echo" })
    await contributions.getByRole("row").filter({ hasText: "plugin_echo_echo" }).filter({ hasText: "plugin.echo.echo" }).waitFor()
    await contributions.getByRole("row").filter({ hasText: "/shout" }).waitFor()
    await contributions.getByRole("row").filter({ hasText: "/plugins/echo/rpc/ping" }).filter({ hasText: "operator.read" }).waitFor()
    const text = await card.textContent()
    expect(text).toContain("verified against plugin.lock.json")
    expect(text).toContain("at version 1.0.0 from examples/plugins/echo")
    expect(text).toContain("running")
    expect(text).toContain("secrets: none")
    await screenshot(page, "plugins")
    await expectAccessible(page)
  })

  it("lists the directories that did not load, with the reason and the line", async () => {
    const failed = page.getByRole("table", { name: "Plugins not loaded" })
    await failed.getByRole("row").filter({ hasText: "invalid_manifest" }).filter({ hasText: "plugin.yml:5" }).waitFor()
    await failed.getByRole("row").filter({ hasText: "unsafe_directory" }).filter({ hasText: "world-writable" }).waitFor()
  })

  it("says how to turn plugins on when they are off", async () => {
    const off = await startConsole({ rateLimitMax: 10_000 })
    try {
      const p = (await off.open()).page
      await signIn(p, off.gw.adminToken)
      await openPlugins(p)
      await p.getByText("Plugins are off: start the gateway with SVC_PLUGINS_ENABLED=1").waitFor()
      await screenshot(p, "plugins-off")
      await expectAccessible(p)
    } finally {
      await off.close()
    }
  })
})
