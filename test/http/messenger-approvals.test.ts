/**
 * Approvals in the messenger chat (issue 26 §3 "Approvals where the
 * conversation is"; docs/messenger.md "Approvals in the chat"), black-box: a
 * tool call the policy escalates, raised by a turn of a messenger chat, is
 * sent to that chat with approve / deny buttons (signed callback data); a
 * forged button changes nothing, a chat that is not in
 * `messenger.operators` is refused, the first valid press resolves the
 * approval exactly once (a second press is answered politely), the prompt is
 * edited to show the outcome, and the session's next turn runs the approved
 * call and its reply reaches the chat. On SQLite and, when
 * SVC_TEST_DATABASE_URL is set, PostgreSQL.
 */
import { Redacted } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { agentHome } from "../support/agentHome.ts"
import { postgres } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { type MessengerServer, startMessengerServer, textUpdate } from "../support/messengerServer.ts"

const SECRET = "approvals-secret"
const HEADER = { "x-messenger-bot-api-secret-token": SECRET }

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

for (const database of databases) describe(`approvals in the messenger chat (${database.name})`, () => {
  let gw: TestGateway
  let bot: MessengerServer
  let target: Server
  let targetUrl: string
  const fetched: Array<string> = []

  beforeAll(async () => {
    target = createServer((req, res) => {
      fetched.push(req.url ?? "")
      res.writeHead(200, { "content-type": "text/plain" }).end("all green")
    })
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve))
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/status`
    bot = await startMessengerServer()
    const home = agentHome([
      "v: 1",
      "tools:",
      "  default: require_approval",
      "  require_approval: [tool.http.fetch]",
      "network_egress:",
      "  default: allow"
    ], {
      scout: [
        "turns:",
        `  - tool_calls: [{name: http_fetch, arguments: {url: "${targetUrl}"}}]`,
        "    reply: Fetching.",
        "  - reply: The page is green."
      ],
      racer: ["turns:", `  - tool_calls: [{name: http_fetch, arguments: {url: "${targetUrl}"}}]`, "    reply: Fetching.", "  - reply: Done."]
    })
    gw = await startGateway({
      rateLimitMax: 10_000,
      agentEnabled: true,
      agentModel: "builtin/scripted",
      home,
      messengerBotToken: Redacted.make("99:approvals"),
      messengerWebhookSecret: Redacted.make(SECRET),
      messengerApiUrl: bot.url
    }, database.storage())
    const put = await gw.fetch("/routing/config", {
      method: "PUT",
      headers: { authorization: `Bearer ${gw.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ config: { v: 1, messenger: { default_agent_id: "scout", threads: { "703": "racer" }, operators: ["701", "703"] } } })
    })
    expect(put.status).toBe(201)
  })
  afterAll(async () => {
    await gw.close()
    await bot.close()
    await new Promise<void>((resolve) => target.close(() => resolve()))
  })

  const ingress = (body: unknown) => postJson(gw, "/ingress/messenger", body, gw.adminToken, HEADER).then(readJson)
  const press = (chat: number, data: string, queryId: string, messageId = 1) =>
    ingress({
      update_id: 1,
      callback_query: {
        id: queryId,
        from: { id: chat, is_bot: false, first_name: "Op", username: `user${chat}` },
        message: { message_id: messageId, date: 1767225600, chat: { id: chat, type: "private" } },
        data
      }
    })
  const promptTo = (chat: number) => bot.callsOf("sendMessage").find((c) => c.body.chat_id === String(chat) && c.body.reply_markup !== undefined)
  /** The note the presser of `queryId` was shown (sent in the background after the webhook answered). */
  const answerTo = async (queryId: string) => {
    const of = () => bot.callsOf("answerCallbackQuery").find((c) => c.body.callback_query_id === queryId)?.body.text
    await eventually(() => of() !== undefined, `the answer to ${queryId}`)
    return of()
  }
  const approval = async (id: number) =>
    (await readJson(await gw.fetch(`/approvals/${id}`, { headers: { authorization: `Bearer ${gw.adminToken}` } }))).approval

  it("sends signed buttons, refuses forged and non-operator presses, resolves once and continues the turn", async () => {
    await ingress(textUpdate(701, 1, "Check the status page"))
    await eventually(() => promptTo(701) !== undefined, "the approval prompt")
    const prompt = promptTo(701)!
    const [[approve, deny]] = prompt.body.reply_markup.inline_keyboard
    expect([approve.text, deny.text]).toEqual(["Approve", "Deny"])
    expect(approve.callback_data).toMatch(/^ap:\d+:a:[A-Za-z0-9_-]{8}:[A-Za-z0-9_-]{22}$/)
    expect(Buffer.byteLength(approve.callback_data)).toBeLessThanOrEqual(64)
    const approvalId = Number(approve.callback_data.split(":")[1])
    expect(prompt.body.text).toContain(`(approval ${approvalId})`)
    expect(prompt.body.text).toContain("http_fetch")
    await eventually(() => bot.callsOf("sendMessage").some((c) => c.body.chat_id === "701" && /Waiting for an operator/.test(c.body.text)), "the turn's reply")

    // Forged: another signature, or the data of another decision.
    const forged = approve.callback_data.slice(0, -4) + "AAAA"
    expect(await press(701, forged, "q-forged")).toEqual({ ok: true, callback: { outcome: "invalid" } })
    expect(await press(701, `ap:${approvalId}:d:${approve.callback_data.split(":")[3]}:${approve.callback_data.split(":")[4]}`, "q-swap"))
      .toEqual({ ok: true, callback: { outcome: "invalid" } })
    expect(await press(701, "garbage", "q-garbage")).toEqual({ ok: true, callback: { outcome: "invalid" } })
    // The right data pressed in another chat does not verify (it is signed for 701).
    expect(await press(702, approve.callback_data, "q-elsewhere")).toEqual({ ok: true, callback: { outcome: "invalid" } })
    expect(await answerTo("q-forged")).toBe("Sorry, this button is not valid (it may be out of date).")
    expect((await approval(approvalId)).status).toBe("pending")

    // A chat that is not an operator gets its own prompt, and a refusal when it presses.
    await ingress(textUpdate(702, 1, "Check the status page too"))
    await eventually(() => promptTo(702) !== undefined, "the second prompt")
    const [[approveElsewhere]] = promptTo(702)!.body.reply_markup.inline_keyboard
    const otherId = Number(approveElsewhere.callback_data.split(":")[1])
    expect(await press(702, approveElsewhere.callback_data, "q-refused")).toEqual({ ok: true, callback: { outcome: "refused", approval_id: otherId } })
    expect(await answerTo("q-refused")).toBe("Sorry, approvals can only be resolved from an operator chat.")
    expect((await approval(otherId)).status).toBe("pending")

    // The operator chat approves: exactly once.
    expect(await press(701, approve.callback_data, "q-approve")).toEqual({ ok: true, callback: { outcome: "approved", approval_id: approvalId } })
    expect(await answerTo("q-approve")).toBe(`Approval ${approvalId} approved.`)
    const resolved = await approval(approvalId)
    expect(resolved.status).toBe("approved")
    expect(resolved.resolution.resolved_by).toEqual({ kind: "http", principal: "messenger:701:user701" })
    for (const [data, id] of [[approve.callback_data, "q-again"], [deny.callback_data, "q-deny"]] as const) {
      expect(await press(701, data, id)).toEqual({ ok: true, callback: { outcome: "already_resolved", approval_id: approvalId } })
      expect(await answerTo(id)).toBe(`Approval ${approvalId} was already approved; nothing changed.`)
    }
    expect((await approval(approvalId)).status).toBe("approved")

    // The prompt is edited to show the outcome, and the next turn runs the approved call.
    await eventually(() => bot.callsOf("editMessageText").length === 1, "the edit")
    expect(bot.callsOf("editMessageText")[0].body).toMatchObject({ chat_id: "701", message_id: prompt.messageId })
    expect(bot.callsOf("editMessageText")[0].body.text).toMatch(/Approved by messenger:701:user701\.$/)
    await eventually(() => bot.callsOf("sendMessage").some((c) => c.body.chat_id === "701" && c.body.text === "The page is green."), "the continued turn's reply")
    expect(fetched).toEqual(["/status"])
    const inbox = await readJson(await gw.fetch("/ingress/messenger/inbox", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    expect(inbox.items.find((i: any) => i.message_id === `approval:${approvalId}`)).toMatchObject({ chat_id: "701", status: "processed", text: `Approval ${approvalId} was approved.` })
  })

  it("resolves once when approve and deny are pressed at the same moment", async () => {
    await ingress(textUpdate(703, 1, "Check it"))
    await eventually(() => promptTo(703) !== undefined, "the approval prompt")
    const [[approve, deny]] = promptTo(703)!.body.reply_markup.inline_keyboard
    const approvalId = Number(approve.callback_data.split(":")[1])
    const answers = await Promise.all([
      press(703, approve.callback_data, "race-a"),
      press(703, deny.callback_data, "race-d"),
      press(703, approve.callback_data, "race-a2")
    ])
    const outcomes = answers.map((a: any) => a.callback.outcome)
    expect(outcomes.filter((o: string) => o === "approved" || o === "denied")).toHaveLength(1)
    expect(outcomes.filter((o: string) => o === "already_resolved")).toHaveLength(2)
    const status = (await approval(approvalId)).status
    expect(outcomes).toContain(status)
  })
})
