/**
 * The console's Agent chat page in Chromium (issue 25 §7) against a real
 * gateway with the agent runtime on and the scripted provider
 * (`builtin/scripted`, `$SVC_HOME/agents/default/script.yml`): a plain turn
 * streams its reply in (`message.delta`, seen partial while the agent types)
 * and shows it whole; a scripted `http_fetch` that the policy escalates
 * shows its approval inline, approved in the page, and the next turn runs the
 * call and answers from its result; each turn's context report shows the
 * memory hits and the tool calls; `/help` runs as `command.execute` and its
 * output is shown; the agent's status and the model catalog are shown; a
 * subagent spawned elsewhere is listed live with its status and its reply.
 * Screenshots and axe on each state.
 * With the runtime off, the page says so and a message fails saying how to turn it on.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startHttpTarget, type HttpTarget } from "../support/httpTarget.ts"
import { connectPeer } from "../support/wsPeer.ts"
import { browserAvailable, type Console, expectAccessible, screenshot, signIn, startConsole, waitLive } from "./browser.ts"
import { agentHome } from "../support/agentHome.ts"

const GREETING = "Hello operator, I am the scripted agent and I answer in several words."

describe.skipIf(!browserAvailable)("console: agent chat", () => {
  let ui: Console
  let page: Page
  let target: HttpTarget
  const turn = (n: number) => page.getByRole("log", { name: "Transcript" }).getByRole("listitem").nth(n - 1)

  beforeAll(async () => {
    target = await startHttpTarget(() => ({ page: "all green" }))
    const home = agentHome([
      "v: 1",
      "tools:",
      "  default: require_approval",
      "  allow: [tool.memory.search, tool.memory.write]",
      "  require_approval: [tool.http.fetch]",
      "network_egress:",
      "  default: allow",
    ], {
      default: [
        "turns:",
        `  - reply: "${GREETING}"`,
        `  - tool_calls: [{name: http_fetch, arguments: {url: "${target.url}status"}}]`,
        "    reply: Fetching.",
        "  - reply: The status page says all green.",
      ]
    })
    ui = await startConsole({ agentEnabled: true, agentModel: "builtin/scripted", home, rateLimitMax: 10_000 })
    // A memory item the second message finds.
    const { peer } = await connectPeer(ui.gw.url, ui.gw.adminToken)
    const created = await peer.request("memory.create", { v: 1, item: { kind: "note", title: "Status page", body_md: "The status page shows the health of every service." } })
    expect(created.ok).toBe(true)
    peer.ws.close()
    page = (await ui.open()).page
    await signIn(page, ui.gw.adminToken)
    await waitLive(page)
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Agent chat" }).click()
    await page.getByRole("heading", { name: "Agent chat", level: 1 }).waitFor()
  })
  afterAll(async () => {
    await ui?.close()
    await target?.close()
  })

  it("shows the agent's status and the model catalog", async () => {
    const status = page.getByRole("region", { name: "Agent status" })
    await status.getByText("builtin/scripted").waitFor()
    expect(await status.textContent()).toContain("ready")
    expect(await status.textContent()).toContain("http_fetch")
    const models = page.getByRole("region", { name: "Models" })
    const builtin = models.getByRole("table", { name: "Providers" }).getByRole("row").filter({ hasText: "builtin" })
    await builtin.waitFor()
    expect(await builtin.getByRole("cell").nth(2).textContent()).toBe("2")
    expect(await models.textContent()).toMatch(/Catalog(bundled|cache|remote)/)
    await builtin.getByRole("button", { name: "Models of builtin" }).click()
    await models.getByRole("table", { name: "Models of builtin" }).getByText("builtin/scripted").waitFor()
    await screenshot(page, "agent-chat-empty")
    await expectAccessible(page)
  }, 90_000)

  it("streams a plain turn's reply and shows it whole", async () => {
    // Record every text the reply shows while it arrives.
    await page.evaluate(`(() => {
      window.__replies = []
      const log = document.querySelector('[role="log"]')
      new MutationObserver(() => {
        const reply = log.querySelector('.reply')
        if (reply) window.__replies.push(reply.textContent)
      }).observe(log, { subtree: true, childList: true, characterData: true })
    })()`)
    const message = page.getByLabel("Message")
    await message.focus()
    await page.keyboard.type("Hello agent")
    await page.keyboard.press("Enter")
    expect(await message.inputValue()).toBe("")
    await turn(1).getByText(GREETING).waitFor()
    await expect.poll(() => turn(1).getAttribute("aria-busy")).toBe("false")
    const seen = await page.evaluate<Array<string>>("window.__replies")
    // Partial text while typing: a non-empty start of the greeting, not all of it.
    const partial = seen.filter((text) => text.includes("(typing…)")).map((text) => text.replace(/^Agent:\s*/, "").replace(/\s*\(typing…\)$/, ""))
    expect(partial.some((text) => text.length > 0 && text.length < GREETING.length && GREETING.startsWith(text))).toBe(true)
    // The turn's context report, collapsed: its summary line.
    await turn(1).getByText(/^Context report of turn 1: builtin\/scripted · /).waitFor()
    expect(await turn(1).textContent()).not.toContain("Tools used")
    await screenshot(page, "agent-chat-plain")
    await expectAccessible(page)
  }, 90_000)

  it("shows an escalated tool call's approval inline; approved there, the next turn answers from the tool's result", async () => {
    await page.getByLabel("Message").fill("Check the status page")
    await page.getByLabel("Message").press("Enter")
    const waiting = turn(2)
    await waiting.getByText(/Waiting for an operator to approve http_fetch on ".*\/status" \(approval \d+\)/).waitFor()
    await waiting.getByText("Tools used: http_fetch").waitFor()
    const approval = waiting.getByRole("region", { name: /^Approval \d+: http_fetch \(pending\)$/ })
    await approval.waitFor()
    expect(await approval.textContent()).toContain("tool.http.fetch")
    expect(JSON.parse((await approval.getByLabel(/^Arguments of approval \d+$/).textContent())!)).toEqual({ url: `${target.url}status` })
    expect(target.calls).toEqual([])

    // The report: the memory hit of "status page", and the call waiting for approval.
    const report = waiting.locator("details.report")
    await report.getByText(/ · 1 memory hit · 1 tool call · /).waitFor()
    await report.locator("summary").click()
    const calls = report.getByRole("table", { name: "Tool calls of turn 2" })
    await calls.waitFor()
    const row = await calls.getByRole("row").nth(1).textContent()
    expect(row).toContain("http_fetch")
    expect(row).toContain("require_approval")
    expect(row).toMatch(/waiting for approval \d+/)
    expect(await report.textContent()).toMatch(/Memory hits1 keyword, 0 semantic/)
    expect(await report.textContent()).toContain("cost $0.000000")
    await screenshot(page, "agent-chat-approval")
    await expectAccessible(page)

    await approval.getByRole("button", { name: /^Approve approval \d+$/ }).click()
    await waiting.getByRole("region", { name: /^Approval \d+: http_fetch \(approved\)$/ })
      .getByText("Approved: the call runs at the start of the next turn, and the agent sees its result.").waitFor()

    await page.getByLabel("Message").fill("What did the page say?")
    await page.getByRole("button", { name: "Send" }).click()
    await turn(3).getByText("The status page says all green.").waitFor()
    expect(target.calls).toEqual(["GET /status"])
    const next = turn(3).locator("details.report")
    await next.getByText(/ · 1 tool call · /).waitFor()
    await next.locator("summary").click()
    const ran = await next.getByRole("table", { name: "Tool calls of turn 3" }).getByRole("row").nth(1).textContent()
    expect(ran).toContain("approved")
    expect(ran).toContain("ok")
    expect(await next.textContent()).toContain("resolved_tool_calls")
    await screenshot(page, "agent-chat-approved")
    await expectAccessible(page)
  }, 90_000)

  it("runs a slash command and shows its output", async () => {
    await page.getByLabel("Message").fill("/help")
    await page.getByLabel("Message").press("Enter")
    const output = turn(4).getByLabel("Output of /help")
    await output.waitFor()
    const text = await output.textContent()
    for (const command of ["/help", "/new", "/model", "/context", "/usage"]) expect(text).toContain(command)
    await screenshot(page, "agent-chat-command")
    await expectAccessible(page)
  }, 90_000)

  it("lists the agent's subagents with their status and last reply, live", async () => {
    const panel = page.getByRole("region", { name: "Subagents" })
    await panel.getByText("No subagent of default in this scope.").waitFor()
    const { peer } = await connectPeer(ui.gw.url, ui.gw.adminToken)
    const scope = { tenant_id: "default", agent_id: "default", workspace_id: "default" }
    const spawned = await peer.request("subagent.spawn", { ...scope, execution_profile: "research" })
    expect(spawned.ok).toBe(true)
    const id: string = spawned.result.subagent.subagent_id
    const row = panel.getByRole("table", { name: "Subagents" }).getByRole("row").filter({ hasText: "research" })
    await row.getByText("running", { exact: true }).waitFor()
    expect(await peer.request("subagent.send", { ...scope, subagent_id: id, content: "Say hello" })).toMatchObject({ ok: true, result: { accepted: true } })
    // Its own session (channel subagent): the reply shows in the panel, not in the chat's transcript.
    await row.getByText(GREETING).waitFor()
    expect(await page.getByRole("log", { name: "Transcript" }).getByText(GREETING).count()).toBe(1)
    expect(await peer.request("subagent.close", { ...scope, subagent_id: id })).toMatchObject({ ok: true })
    await row.getByText("closed", { exact: true }).waitFor()
    peer.ws.close()
    await screenshot(page, "agent-chat-subagents")
    await expectAccessible(page)
  }, 90_000)
})

describe.skipIf(!browserAvailable)("console: agent chat with the runtime off", () => {
  let ui: Console
  afterAll(async () => {
    await ui?.close()
  })

  it("says the runtime is off, and a message fails saying how to turn it on", async () => {
    ui = await startConsole({ rateLimitMax: 10_000 })
    const { page } = await ui.open()
    await signIn(page, ui.gw.adminToken)
    await waitLive(page)
    await page.goto("/ui/agent")
    await page.getByRole("region", { name: "Agent status" })
      .getByText("The agent runtime is off on this gateway: start it with SVC_AGENT_ENABLED=1 (docs/agent.md).").waitFor()
    await page.getByLabel("Message").fill("Hello?")
    await page.getByLabel("Message").press("Enter")
    await page.getByRole("log", { name: "Transcript" }).getByRole("alert")
      .filter({ hasText: "the agent runtime is off (SVC_AGENT_ENABLED=1 turns it on) (404 unsupported_request)" }).waitFor()
    await screenshot(page, "agent-chat-off")
    await expectAccessible(page)
  }, 90_000)
})
