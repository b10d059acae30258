/**
 * The console's Memory page in Chromium (issue 24 §6) against a real gateway:
 * items seeded over WebSocket are listed newest first; a search (typed and
 * submitted with Enter) shows the best match first with its score and the
 * match highlighted; kind and tag filters narrow the list; an item opens with
 * every field; forgetting it needs `FORGET` typed (the button stays disabled
 * until then) and leaves a tombstone (checked over WebSocket); an item created
 * elsewhere appears live; Export downloads the export of the current filter
 * from `GET /memory/exports/<id>` (with the tombstones when asked); the
 * agent field switches to another agent's items. Screenshots and axe on each state.
 */
import { readFileSync } from "node:fs"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectPeer, type TestPeer } from "../support/wsPeer.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole, tabTo, waitLive } from "./browser.ts"

const POLL = { timeout: 20_000 }

describe.skipIf(!browserAvailable)("console: memory", () => {
  let ui: Console
  let page: Page
  let peer: TestPeer
  const ids: Record<string, string> = {}
  const create = async (name: string, item: Record<string, unknown>) => {
    const answer = await peer.request("memory.create", { v: 1, item })
    expect(answer.ok).toBe(true)
    ids[name] = answer.result.item.memory_item_id
  }
  const rows = (name: string) => page.getByRole("table", { name }).getByRole("row")

  beforeAll(async () => {
    ui = await startConsole({ rateLimitMax: 10_000 })
    peer = (await connectPeer(ui.gw.url, ui.gw.adminToken)).peer
    await create("sync", { kind: "note", title: "Weekly sync", body_md: "We mentioned the postgres migration once.", tags: ["meeting"] })
    await create("plan", { kind: "note", title: "Postgres migration plan", body_md: "Dump, restore, verify.", tags: ["db", "ops"] })
    await create("window", { kind: "fact", key: "deploy.window", value: { day: "tuesday" }, observed_at: "2026-11-20T09:00:00Z", confidence: 0.9, tags: ["ops"] })
    await create("lunch", { kind: "episode", occurred_at: "2026-11-20T12:00:00Z", summary_md: "Lunch with the team" })
    page = (await ui.open()).page
    await signIn(page, ui.gw.adminToken)
    await waitLive(page)
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Memory" }).click()
    await page.getByRole("heading", { name: "Memory", level: 1 }).waitFor()
  })
  afterAll(async () => {
    peer?.ws.close()
    await ui?.close()
  })

  it("lists the items newest first, searches best first, filters by kind and tag", async () => {
    await expect.poll(() => rows("Memory items").count(), POLL).toBe(5)
    expect(await rows("Memory items").nth(1).textContent()).toContain("Lunch with the team")
    expect(await rows("Memory items").nth(4).textContent()).toContain("Weekly sync")
    await screenshot(page, "memory-list")
    await expectAccessible(page)

    // Search with the keyboard: type, Enter.
    await page.getByRole("searchbox", { name: "Search" }).focus()
    await page.keyboard.type("postgres")
    await page.keyboard.press("Enter")
    await page.getByText("2 results for “postgres”, best first").waitFor()
    const hits = rows("Search results")
    expect(await hits.count()).toBe(3)
    // The item whose title matches ranks above the one that mentions it once in its body.
    await hits.nth(1).getByRole("button", { name: `Open result ${ids.plan}` }).waitFor()
    await hits.nth(2).getByRole("button", { name: `Open result ${ids.sync}` }).waitFor()
    expect(await hits.nth(1).locator("mark").first().textContent()).toMatch(/postgres/i)
    const score = async (n: number) => Number(await hits.nth(n).getByRole("cell").nth(2).textContent())
    expect(await score(1)).toBeGreaterThan(await score(2))
    expect(await score(1)).toBeLessThanOrEqual(1)
    await screenshot(page, "memory-search")
    await expectAccessible(page)

    // Kind filter with an empty query: the newest items of that kind.
    await page.getByRole("searchbox", { name: "Search" }).fill("")
    await page.getByLabel("Kind").selectOption("fact")
    await page.getByRole("button", { name: "Search", exact: true }).click()
    await page.getByText("1 items, newest first").waitFor()
    expect(await rows("Memory items").nth(1).textContent()).toContain("deploy.window")
    // Tag filter (all of): ops and db → the plan only.
    await page.getByLabel("Kind").selectOption("")
    await page.getByLabel("Tags").fill("ops, db")
    await page.getByRole("button", { name: "Search", exact: true }).click()
    // The count already read "1 items" for the kind filter: wait for the row of the new result itself.
    await rows("Memory items").nth(1).filter({ hasText: "Postgres migration plan" }).waitFor()
    await page.getByText("1 items, newest first").waitFor()
    await page.getByLabel("Tags").fill("")
    await page.getByRole("button", { name: "Search", exact: true }).click()
    await page.getByText("4 items, newest first").waitFor()
  }, 90_000)

  it("shows an item with every field", async () => {
    await page.getByRole("button", { name: "Open deploy.window" }).click()
    const panel = page.getByRole("region", { name: "fact: deploy.window" })
    await panel.getByText(ids.window!).waitFor()
    const text = await panel.textContent()
    for (const field of ["Agent", "default", "Sensitivity", "private", "Tags", "ops", "Key", "Observed", "2026-11-20T09:00:00Z", "Confidence", "0.9"]) {
      expect(text).toContain(field)
    }
    expect(JSON.parse((await panel.getByLabel("Fact value").textContent())!)).toEqual({ day: "tuesday" })
    expect(JSON.parse((await panel.getByLabel("Provenance").textContent())!)).toMatchObject({ source_kind: "operator" })
    await screenshot(page, "memory-item")
    await expectAccessible(page)
    await panel.getByRole("button", { name: "Close" }).click()
    await panel.waitFor({ state: "detached" })
  }, 90_000)

  it("forgets an item with the keyboard once FORGET is typed, leaving a tombstone", async () => {
    await page.getByRole("button", { name: "Open Weekly sync" }).focus()
    await page.keyboard.press("Enter")
    const item = page.getByRole("region", { name: "note: Weekly sync" })
    await item.getByText(ids.sync!).waitFor()
    await tabTo(page, /^Forget this item$/)
    await page.keyboard.press("Enter")
    const panel = page.getByRole("region", { name: "Forget memory" })
    await panel.waitFor()
    expect(await panel.getByLabel("Item id").inputValue()).toBe(ids.sync)
    const forget = panel.getByRole("button", { name: "Forget", exact: true })
    expect(await forget.isDisabled()).toBe(true)
    await panel.getByLabel("Type FORGET to confirm").focus()
    await page.keyboard.type("forget")
    expect(await forget.isDisabled()).toBe(true)
    await page.keyboard.press("Control+A")
    await page.keyboard.type("FORGET")
    expect(await forget.isDisabled()).toBe(false)
    await screenshot(page, "memory-forget")
    await expectAccessible(page)
    await page.keyboard.press("Enter")
    await page.getByRole("status").filter({ hasText: "Forgot 1 item (tombstones kept)." }).waitFor()
    await panel.waitFor({ state: "detached" })
    expect(await peer.request("memory.get", { v: 1, memory_item_id: ids.sync })).toMatchObject({
      ok: false,
      error: { code: "not_found", message: "memory item not found" }
    })
    await expect.poll(() => rows("Memory items").count(), POLL).toBe(4)
    expect(await page.getByRole("table", { name: "Memory items" }).textContent()).not.toContain("Weekly sync")
  }, 90_000)

  it("forgets by tag, and shows new items live", async () => {
    await page.getByRole("button", { name: "Forget…" }).click()
    const panel = page.getByRole("region", { name: "Forget memory" })
    await panel.getByRole("combobox", { name: "Forget" }).selectOption("tag")
    await panel.getByLabel("Tag", { exact: true }).fill("ops")
    await panel.getByLabel("Type FORGET to confirm").fill("FORGET")
    await panel.getByRole("button", { name: "Forget", exact: true }).click()
    await page.getByRole("status").filter({ hasText: "Forgot 2 items (tombstones kept)." }).waitFor()
    await expect.poll(() => rows("Memory items").count(), POLL).toBe(2)

    await create("live", { kind: "note", title: "Arrived live", body_md: "Created over WebSocket while the page is open." })
    await page.getByRole("table", { name: "Memory items" }).getByRole("cell", { name: "Arrived live", exact: true }).waitFor()
  }, 90_000)

  it("exports the current filter and downloads it", async () => {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export" }).click()
    ])
    await page.getByRole("status").filter({ hasText: /^Exported as / }).waitFor()
    expect(download.suggestedFilename()).toMatch(/^svc-memory-export-[0-9a-f-]{36}\.json$/)
    const body = JSON.parse(readFileSync((await download.path())!, "utf8"))
    expect(body).toMatchObject({ v: 1, include_tombstones: false })
    expect(body.items.map((i: any) => i.memory_item_id).sort()).toEqual([ids.live, ids.lunch].sort())
    await screenshot(page, "memory-exported")
    await expectAccessible(page)

    // With the tombstones of the forgotten items.
    await page.getByLabel("Include tombstones").check()
    const [withTombstones] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export" }).click()
    ])
    const full = JSON.parse(readFileSync((await withTombstones.path())!, "utf8"))
    expect(full.include_tombstones).toBe(true)
    expect(full.tombstones.map((t: any) => t.memory_item_id).sort()).toEqual([ids.sync, ids.plan, ids.window].sort())
  }, 90_000)

  it("switches agents: another agent's items only, live", async () => {
    await page.getByLabel("Agent").fill("ops-bot")
    await page.getByLabel("Agent").press("Enter")
    await page.getByText("No memory item yet for this agent (and filter).").waitFor()
    await create("other", { agent_id: "ops-bot", kind: "note", title: "Ops bot note", body_md: "Only for ops-bot." })
    await page.getByRole("table", { name: "Memory items" }).getByRole("cell", { name: "Ops bot note", exact: true }).waitFor()
    expect(await page.getByText("1 items, newest first").count()).toBe(1)
    await page.getByLabel("Agent").fill("")
    await page.getByLabel("Agent").press("Enter")
    await page.getByText("2 items, newest first").waitFor()
    expect(await page.getByLabel("Agent").inputValue()).toBe("default")
  }, 90_000)
})
