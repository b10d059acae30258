/**
 * The operator console in a real browser: Debian's Chromium
 * (`/usr/bin/chromium`, or `SVC_CHROMIUM`) driven by playwright-core against a
 * real gateway started by the test, serving the built console (dist/ui; the
 * README's `npm test` builds it first). Screenshots go to test-results/ui/
 * (git-ignored); {@link expectAccessible} runs axe-core on a page.
 *
 * Without Chromium the suites skip, unless `SVC_REQUIRE_BROWSER=1` (set by
 * .ci/run, which installs it), where they fail instead.
 */
import AxeBuilder from "@axe-core/playwright"
import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { expect } from "vitest"
import { startGateway, type StartOptions, type TestGateway } from "../support/gateway.ts"
import type { GatewaySettings } from "../../layers/config.ts"

/** The Chromium binary. */
export const CHROMIUM = process.env.SVC_CHROMIUM ?? "/usr/bin/chromium"

/** True when the browser suites can run (or must: `SVC_REQUIRE_BROWSER=1`). */
export const browserAvailable = existsSync(CHROMIUM) || process.env.SVC_REQUIRE_BROWSER === "1"

const SCREENSHOTS = join(import.meta.dirname, "..", "..", "test-results", "ui")

/** A gateway with a browser pointed at it. */
export interface Console {
  readonly gw: TestGateway
  readonly browser: Browser
  /** A fresh browser context (its own cookies and IndexedDB) with one page. */
  readonly open: () => Promise<{ context: BrowserContext; page: Page }>
  readonly close: () => Promise<void>
}

/** Starts a gateway and Chromium. */
export const startConsole = async (
  settings: Partial<GatewaySettings> = {},
  options: StartOptions = {}
): Promise<Console> => consoleOn(await startGateway(settings, undefined, options))

/** Starts Chromium on a gateway already started (e.g. one instance of a cluster); `close` stops both. */
export const consoleOn = async (gw: TestGateway): Promise<Console> => {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-dev-shm-usage"] })
  return {
    gw,
    browser,
    open: async () => {
      const context = await browser.newContext({ baseURL: gw.url, viewport: { width: 1280, height: 900 } })
      context.setDefaultTimeout(15_000)
      return { context, page: await context.newPage() }
    },
    close: async () => {
      await browser.close()
      await gw.close()
    }
  }
}

/** Signs in on `/ui` with `token` and waits for the console's navigation. */
export const signIn = async (page: Page, token: string): Promise<void> => {
  await page.goto("/ui")
  await page.getByLabel("Token").fill(token)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("navigation", { name: "Pages" }).waitFor()
}

/** Waits until the live connection is up (the header's indicator says `live`). */
export const waitLive = (page: Page) => page.locator(".live-live").waitFor()

/** Writes a full-page screenshot to test-results/ui/<name>.png. */
export const screenshot = async (page: Page, name: string): Promise<void> => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

/** axe-core on the current page: no serious or critical violation (the rule ids and nodes in the failure). */
export const expectAccessible = async (page: Page): Promise<void> => {
  const results = await new AxeBuilder({ page }).analyze()
  const bad = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join("; ")}`)
  expect(bad).toEqual([])
}

/** Presses Tab until the focused element matches `name` (accessible name or text); fails after `max` presses. */
export const tabTo = async (page: Page, name: RegExp, max = 60): Promise<void> => {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab")
    const focused = await page.evaluate<string>(
      "(() => { const e = document.activeElement; return e ? (e.getAttribute('aria-label') || e.textContent || e.id || '').trim() : '' })()"
    )
    if (name.test(focused)) return
  }
  throw new Error(`no focusable element named ${name} within ${max} Tab presses`)
}
