/**
 * The console's Messenger inbox page in Chromium (issue 26 §4): the updates
 * the ingress received, with the counts (queued, processed, deduplicated),
 * each update's agent, status, reply and delivery receipts, updated live as
 * replies are delivered; the status filter. Every state: screenshot + axe.
 */
import { Redacted } from "effect"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postJson, readJson } from "../support/gateway.ts"
import { type MessengerServer, startMessengerServer, textUpdate } from "../support/messengerServer.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole } from "./browser.ts"

const SECRET = "console-secret"

describe.skipIf(!browserAvailable)("console: messenger inbox", () => {
  let ui: Console
  let page: Page
  let bot: MessengerServer
  const send = async (chat: number, id: number, text: string) => {
    const res = await postJson(ui.gw, "/ingress/messenger", textUpdate(chat, id, text), ui.gw.adminToken, { "x-messenger-bot-api-secret-token": SECRET })
    expect(res.status).toBe(200)
    return readJson(res)
  }

  beforeAll(async () => {
    bot = await startMessengerServer()
    ui = await startConsole({
      rateLimitMax: 10_000,
      agentEnabled: true,
      messengerBotToken: Redacted.make("55:console"),
      messengerWebhookSecret: Redacted.make(SECRET),
      messengerApiUrl: bot.url
    })
    page = (await ui.open()).page
  })
  afterAll(async () => {
    await ui?.close()
    await bot?.close()
  })

  it("lists the updates with their status, reply and receipts, and the counts", async () => {
    await signIn(page, ui.gw.adminToken)
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Messenger inbox" }).click()
    await page.getByRole("heading", { name: "Messenger inbox", level: 1 }).waitFor()
    await page.getByText("No messenger update yet.").waitFor()
    await screenshot(page, "messenger-empty")
    await expectAccessible(page)

    await send(811, 1, "Good morning")
    await send(812, 1, "Status please")
    expect(await send(811, 1, "Good morning")).toMatchObject({ deduped: true })

    const table = page.getByRole("table", { name: "Messenger updates" })
    const morning = table.getByRole("row").filter({ hasText: "Good morning" })
    // Delivered: the receipt arrives live (delivery.receipt).
    await morning.getByText("reply sent (1 call)").waitFor()
    expect(await morning.getByRole("cell").nth(3).textContent()).toBe("processed")
    expect(await morning.getByRole("cell").nth(5).textContent()).toBe("Good morning")
    expect(await morning.getByRole("cell").nth(6).textContent()).toBe("1")
    await table.getByRole("row").filter({ hasText: "Status please" }).getByText("reply sent (1 call)").waitFor()
    const counts = page.getByLabel("Inbox counts")
    await counts.getByText("Deduplicated").waitFor()
    expect(await counts.textContent()).toBe("Queued0Running0Processed2Interrupted0Failed0Deduplicated1")
    await screenshot(page, "messenger-inbox")
    await expectAccessible(page)

    await page.getByLabel("Status").selectOption("failed")
    await page.getByText("No update is failed.").waitFor()
    await page.getByLabel("Status").selectOption("processed")
    await table.getByRole("row").filter({ hasText: "Good morning" }).waitFor()
    expect(await table.getByRole("row").count()).toBe(3)
    await expectAccessible(page)
  })
})
