/**
 * `POST /ingress/messenger` black-box over HTTP (issue 26 §3; gateway-api.md
 * "Ingress (messenger webhook)"; reference §7.10; docs/messenger.md): the
 * normalised update without the integration (thread kinds, media
 * placeholders in detection order, captions, edited messages, `pii_fields`),
 * the refusals (empty body, not JSON, not an update, 503 `misconfigured`, 401
 * for a missing or wrong secret), and with the agent runtime on: queued at
 * once, deduplicated by (account, chat, message id), one turn and one
 * delivered reply per distinct update, routed by `agent_id` or the routing
 * configuration, retried deliveries with their receipts (`delivery.receipt`
 * events), and the inbox read; those on SQLite and, when SVC_TEST_DATABASE_URL
 * is set, PostgreSQL.
 */
import { Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { postgres } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type StructuredLog, type TestGateway } from "../support/gateway.ts"
import { type MessengerServer, startMessengerServer, textUpdate } from "../support/messengerServer.ts"
import { connectPeer } from "../support/wsPeer.ts"

const SECRET = "webhook-secret-1"
const TOKEN = "123456:bot-token-value"
const HEADER = "x-messenger-bot-api-secret-token"

const ingress = (gw: TestGateway, body: unknown, headers: Record<string, string> = {}, query = "") =>
  postJson(gw, `/ingress/messenger${query}`, body, gw.adminToken, headers)

describe("messenger ingress without the integration (no bot token)", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ rateLimitMax: 10_000 })
  })
  afterAll(() => gw.close())

  it("answers the normalised update", async () => {
    const res = await ingress(gw, textUpdate(4242, 7, "Hello"))
    expect(res.status).toBe(200)
    expect(await readJson(res)).toEqual({
      thread: { id: "4242", kind: "private", username: "user4242", pii_fields: ["sender.first_name", "sender.username", "message.text"] },
      message: {
        message_id: "7",
        received_at: new Date((1767225600 + 7) * 1000).toISOString(),
        delivery: { channel: "messenger", account: "default" },
        container: { kind: "dm", id: "4242" },
        sender: { id: "4242", display: "user4242" },
        content: { text: "Hello", attachments: [] },
        provenance: ["user"]
      }
    })
  })

  it("normalises thread kinds, media in detection order, captions and edited messages", async () => {
    const group = await readJson(await ingress(gw, {
      update_id: 1,
      message: { message_id: 3, date: 1767225600, chat: { id: -100, type: "supergroup", title: "Ops" }, video: {}, photo: [{}], caption: "look" }
    }))
    expect(group.thread).toEqual({ id: "-100", kind: "supergroup", title: "Ops", pii_fields: ["message.caption"] })
    expect(group.message.container).toEqual({ kind: "group", id: "-100" })
    expect(group.message.sender).toEqual({ id: "chat:-100" })
    expect(group.message.content).toEqual({ text: "look", attachments: [{ kind: "photo" }] })
    const channel = await readJson(await ingress(gw, { message: { message_id: 4, date: 1, chat: { id: -5, type: "channel" }, sticker: {} } }))
    expect(channel.thread.kind).toBe("channel")
    expect(channel.message.container.kind).toBe("channel")
    expect(channel.message.content).toEqual({ attachments: [{ kind: "sticker" }] })
    const unknown = await readJson(await ingress(gw, { message: { message_id: 5, date: 1, chat: { id: 9, type: "secret" }, poll: {} } }))
    expect(unknown.thread.kind).toBe("other")
    expect(unknown.message.content.attachments).toEqual([{ kind: "unknown" }])
    const edited = await readJson(await ingress(gw, {
      message: textUpdate(1, 1, "old").message,
      edited_message: { ...textUpdate(1, 1, "new").message, edit_date: 1767229999 }
    }))
    expect(edited.message.content.text).toBe("new")
  })

  it("refuses an empty body, a body that is not JSON and one that is not a message update", async () => {
    const empty = await ingress(gw, "")
    expect(empty.status).toBe(400)
    expect(await readJson(empty)).toEqual({ error: "invalid_request", message: "request body is empty" })
    const malformed = await ingress(gw, "{nope")
    expect(malformed.status).toBe(400)
    expect((await readJson(malformed)).error).toBe("invalid_request")
    for (const [body, message] of [
      [{ update_id: 1 }, "the update has no message or edited_message"],
      [[1, 2], "the update must be a JSON object"],
      [{ message: { message_id: 1, date: 1, chat: {} } }, "message.chat.id is missing or not an integer"],
      [{ message: { message_id: 1, chat: { id: 1 } } }, "message.date is missing or not unix seconds"]
    ] as const) {
      const res = await ingress(gw, body)
      expect(res.status).toBe(400)
      expect(await readJson(res)).toEqual({ error: "normalization_error", message })
    }
  })

  it("needs operator.write and a token", async () => {
    const res = await gw.fetch("/ingress/messenger", { method: "POST", body: JSON.stringify(textUpdate(1, 1, "x")) })
    expect(res.status).toBe(401)
  })
})

describe("messenger ingress with the bot token", () => {
  it("answers 503 misconfigured without a webhook secret", async () => {
    const gw = await startGateway({ rateLimitMax: 10_000, messengerBotToken: Redacted.make(TOKEN) })
    try {
      const res = await ingress(gw, textUpdate(1, 1, "x"), { [HEADER]: "anything" })
      expect(res.status).toBe(503)
      expect(await readJson(res)).toEqual({ error: "misconfigured", message: "MESSENGER_WEBHOOK_SECRET must be set when MESSENGER_BOT_TOKEN is" })
    } finally {
      await gw.close()
    }
  })

  it("requires the secret header (401 otherwise) and, with the agent runtime off, answers the normalised update", async () => {
    const gw = await startGateway({
      rateLimitMax: 10_000,
      messengerBotToken: Redacted.make(TOKEN),
      messengerWebhookSecret: Redacted.make(SECRET)
    })
    try {
      for (const headers of [{}, { [HEADER]: "wrong" }, { [HEADER]: `${SECRET}x` }] as Array<Record<string, string>>) {
        const res = await ingress(gw, textUpdate(1, 1, "x"), headers)
        expect(res.status).toBe(401)
        expect(await readJson(res)).toEqual({ error: "unauthorized", message: "invalid messenger webhook secret" })
      }
      const ok = await ingress(gw, textUpdate(1, 1, "x"), { [HEADER]: SECRET })
      expect(ok.status).toBe(200)
      // The account is the bot id: the token's part before ':'.
      expect((await readJson(ok)).message.delivery).toEqual({ channel: "messenger", account: "123456" })
    } finally {
      await gw.close()
    }
  })
})

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

for (const database of databases) describe(`messenger ingress with the agent runtime (builtin/echo; ${database.name})`, () => {
  let gw: TestGateway
  let bot: MessengerServer
  const logs: Array<StructuredLog> = []
  beforeAll(async () => {
    bot = await startMessengerServer()
    gw = await startGateway({
      rateLimitMax: 10_000,
      logLevel: "Debug",
      agentEnabled: true,
      messengerBotToken: Redacted.make(TOKEN),
      messengerWebhookSecret: Redacted.make(SECRET),
      messengerApiUrl: bot.url
    }, database.storage(), { logs })
  })
  afterAll(async () => {
    await gw.close()
    await bot.close()
  })

  const send = (body: unknown, query = "") => ingress(gw, body, { [HEADER]: SECRET }, query)
  const inbox = async (query = "") =>
    readJson(await gw.fetch(`/ingress/messenger/inbox${query}`, { headers: { authorization: `Bearer ${gw.adminToken}` } }))
  const repliesTo = (chatId: number) => bot.callsOf("sendMessage").filter((call) => call.body.chat_id === String(chatId))

  it("queues at once, deduplicates, and delivers one reply per distinct update", async () => {
    const first = await send(textUpdate(501, 1, "Hello, agent"))
    expect(first.status).toBe(200)
    const queued = await readJson(first)
    expect(queued).toMatchObject({ ok: true, queued: true, deduped: false })
    expect(["queued", "running", "processed"]).toContain(queued.status)
    const again = await readJson(await send(textUpdate(501, 1, "Hello, agent")))
    expect(again).toMatchObject({ ok: true, queued: false, deduped: true, inbox_id: queued.inbox_id })
    await eventually(() => repliesTo(501).length === 1, "the reply")
    expect(repliesTo(501)[0]).toMatchObject({ token: TOKEN, body: { chat_id: "501", text: "Hello, agent" } })
    const third = await readJson(await send(textUpdate(501, 1, "Hello, agent")))
    expect(third).toMatchObject({ deduped: true, status: "processed" })
    await eventually(async () => (await inbox()).items.find((i: any) => i.inbox_id === queued.inbox_id)?.receipts.length === 1, "the receipt")
    const item = (await inbox()).items.find((i: any) => i.inbox_id === queued.inbox_id)
    expect(item).toMatchObject({
      account: "123456",
      chat_id: "501",
      message_id: "1",
      agent_id: "default",
      status: "processed",
      text: "Hello, agent",
      duplicates: 2,
      attempts: 1,
      reply: "Hello, agent",
      receipts: [{ channel: "messenger", kind: "reply", status: "sent", attempts: 1, chat_id: "501", inbox_id: queued.inbox_id }]
    })
    expect(repliesTo(501)).toHaveLength(1)
    // The session is the agent's for (messenger, chat id).
    const status = await readJson(await gw.fetch("/agent/status", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    expect(status.session_count).toBeGreaterThanOrEqual(1)
  })

  it("routes by agent_id, else the routing configuration's threads", async () => {
    const put = await gw.fetch("/routing/config", {
      method: "PUT",
      headers: { authorization: `Bearer ${gw.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ config: { v: 1, messenger: { threads: { "502": "support" } } } })
    })
    expect(put.status).toBe(201)
    const routed = await readJson(await send(textUpdate(502, 1, "to support")))
    const forced = await readJson(await send(textUpdate(502, 2, "to ops"), "?agent_id=ops"))
    const other = await readJson(await send(textUpdate(503, 1, "to default")))
    await eventually(() => repliesTo(502).length === 2 && repliesTo(503).length === 1, "the replies")
    const agents = Object.fromEntries((await inbox()).items.map((i: any) => [i.inbox_id, i.agent_id]))
    expect([agents[routed.inbox_id], agents[forced.inbox_id], agents[other.inbox_id]]).toEqual(["support", "ops", "default"])
    const bad = await send(textUpdate(502, 3, "x"), "?agent_id=no%20spaces")
    expect(bad.status).toBe(400)
  })

  it("retries a failing delivery with backoff and announces each receipt", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    try {
      bot.failNext(2, 502)
      const receipt = peer.next((m) => m.type === "delivery.receipt" && m.payload.chat_id === "504", 20_000)
      await send(textUpdate(504, 1, "flaky"))
      expect((await receipt).payload).toMatchObject({ channel: "messenger", account: "123456", kind: "reply", status: "sent", attempts: 3 })
      expect(repliesTo(504)).toHaveLength(1)

      bot.failNext(10, 500)
      const failed = peer.next((m) => m.type === "delivery.receipt" && m.payload.chat_id === "505", 20_000)
      await send(textUpdate(505, 1, "down"))
      const payload = (await failed).payload
      expect(payload).toMatchObject({ status: "failed", attempts: 4, error: "sendMessage: HTTP 500 (Bad Gateway)" })
      expect(JSON.stringify(payload)).not.toContain("bot-token-value")
      bot.failNext(0, 500)
      // The failure is logged, without the token or the webhook secret.
      expect(logs.some((entry) => String(entry.message).includes("messenger delivery failed"))).toBe(true)
      expect(JSON.stringify(logs)).not.toContain("bot-token-value")
      expect(JSON.stringify(logs)).not.toContain(SECRET)
    } finally {
      peer.ws.close()
    }
  })

  it("lists the inbox by status with counts", async () => {
    const all = await inbox()
    expect(all.status).toBe("ok")
    expect(all.counts.processed).toBeGreaterThanOrEqual(5)
    expect(all.counts.deduplicated).toBeGreaterThanOrEqual(2)
    const processed = await inbox("?status=processed&limit=2")
    expect(processed.items).toHaveLength(2)
    expect(processed.items.every((i: any) => i.status === "processed")).toBe(true)
    expect(processed.items[0].inbox_id).toBeGreaterThan(processed.items[1].inbox_id)
    const bad = await gw.fetch("/ingress/messenger/inbox?limit=0", { headers: { authorization: `Bearer ${gw.adminToken}` } })
    expect(bad.status).toBe(400)
  })
})
