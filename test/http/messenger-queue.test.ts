/**
 * The messenger inbox worker against the sessions' settings (issue 26 §3;
 * docs/messenger.md "Queue modes", "Send policy", "Restarts"), black-box
 * with the scripted provider: the first turn of each chat calls `http_fetch`
 * on a local gate that holds its answer, so later updates arrive while that
 * turn runs (no timing bets). `followup` answers each in order, `collect`
 * merges the waiting ones into one turn, `interrupt` stops the running turn
 * (it ends `interrupted`, its reply not delivered), send policy `off`
 * records a `suppressed` receipt and sends nothing; and an update left
 * running by a stopped gateway runs again when it starts (SQLite file and,
 * when SVC_TEST_DATABASE_URL is set, PostgreSQL).
 */
import { Redacted } from "effect"
import { createServer, type Server } from "node:http"
import { mkdtempSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { storageLayer } from "../../layers/storage/Storage.ts"
import { agentHome } from "../support/agentHome.ts"
import { postgresUrl, sharedPostgresSchema } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { type MessengerServer, startMessengerServer, textUpdate } from "../support/messengerServer.ts"
import { connectPeer } from "../support/wsPeer.ts"

const SECRET = "queue-secret"

/** An HTTP server that holds every request until `release()`. */
const startGate = async () => {
  const held: Array<() => void> = []
  let hits = 0
  const server: Server = createServer((_req, res) => {
    hits++
    held.push(() => res.writeHead(200, { "content-type": "text/plain" }).end("gate open"))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/gate`,
    hits: () => hits,
    release: () => held.splice(0).forEach((answer) => answer()),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}

const homeFor = (gateUrl: string) =>
  agentHome(["v: 1", "tools:", "  allow: [tool.http.fetch]", "network_egress:", "  allow: [\"http://127.0.0.1:*\"]"], {
    queue: [
      "turns:",
      `  - tool_calls: [{name: http_fetch, arguments: {url: "${gateUrl}"}}]`,
      "    reply: first done",
      "  - reply: second",
      "  - reply: third"
    ],
    quiet: ["turns:", "  - reply: shh"]
  })

const settingsFor = (bot: MessengerServer, home: string) => ({
  rateLimitMax: 10_000,
  agentEnabled: true,
  agentModel: "builtin/scripted",
  home,
  messengerBotToken: Redacted.make("42:queue"),
  messengerWebhookSecret: Redacted.make(SECRET),
  messengerApiUrl: bot.url
})

const post = (gw: TestGateway, chat: number, id: number, text: string, agent = "queue") =>
  postJson(gw, `/ingress/messenger?agent_id=${agent}`, textUpdate(chat, id, text), gw.adminToken, { "x-messenger-bot-api-secret-token": SECRET }).then(readJson)

const inboxOf = async (gw: TestGateway, chat: number) =>
  (await readJson(await gw.fetch("/ingress/messenger/inbox?limit=200", { headers: { authorization: `Bearer ${gw.adminToken}` } })))
    .items.filter((item: any) => item.chat_id === String(chat)).reverse()

describe("messenger queue modes and send policy", () => {
  let gw: TestGateway
  let bot: MessengerServer
  let gate: Awaited<ReturnType<typeof startGate>>
  beforeAll(async () => {
    bot = await startMessengerServer()
    gate = await startGate()
    gw = await startGateway(settingsFor(bot, homeFor(gate.url)))
  })
  afterAll(async () => {
    await gw.close()
    await bot.close()
    await gate.close()
  })

  const replies = (chat: number) => bot.callsOf("sendMessage").filter((c) => c.body.chat_id === String(chat)).map((c) => c.body.text)
  const command = async (command: string, agent: string, chat: number) => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    try {
      const res = await peer.request("command.execute", { command, agent_id: agent, channel: "messenger", thread_id: String(chat) })
      expect(res.ok).toBe(true)
    } finally {
      peer.ws.close()
    }
  }
  /** Posts the first update of `chat` and waits until its turn is held at the gate. */
  const holdFirst = async (chat: number) => {
    const before = gate.hits()
    await post(gw, chat, 1, "one")
    await eventually(() => gate.hits() === before + 1, "the first turn at the gate")
  }

  it("followup (the default) runs one turn per update, in order", async () => {
    await holdFirst(603)
    await post(gw, 603, 2, "two")
    await post(gw, 603, 3, "three")
    gate.release()
    await eventually(() => replies(603).length === 3, "three replies")
    expect(replies(603)).toEqual(["first done", "second", "third"])
  })

  it("collect merges the updates waiting behind the running turn into one turn", async () => {
    await command("/queue collect", "queue", 601)
    await holdFirst(601)
    await post(gw, 601, 2, "two")
    await post(gw, 601, 3, "three")
    gate.release()
    await eventually(() => replies(601).length === 2, "two replies")
    await eventually(async () => (await inboxOf(gw, 601)).every((i: any) => i.status === "processed"), "all processed")
    expect(replies(601)).toEqual(["first done", "second"])
    const items = await inboxOf(gw, 601)
    expect(items.map((i: any) => [i.text, i.reply])).toEqual([["one", "first done"], ["two", "second"], ["three", "second"]])
    // One receipt for the merged turn, on its last update.
    expect(items.map((i: any) => i.receipts.length)).toEqual([1, 0, 1])
  })

  it("interrupt stops the running turn when an update arrives", async () => {
    await command("/queue interrupt", "queue", 602)
    await holdFirst(602)
    await post(gw, 602, 2, "two")
    gate.release()
    await eventually(() => replies(602).length === 1, "one reply")
    await eventually(async () => (await inboxOf(gw, 602))[0]?.status === "interrupted", "the first interrupted")
    expect(replies(602)).toEqual(["second"])
    const items = await inboxOf(gw, 602)
    expect(items.map((i: any) => i.status)).toEqual(["interrupted", "processed"])
    expect(items[0].error).toBe("stopped by a newer message (queue mode interrupt)")
    expect(items[0].receipts).toEqual([])
  })

  it("send policy off keeps the reply in the session and records it suppressed", async () => {
    await command("/send off", "quiet", 604)
    await post(gw, 604, 1, "psst", "quiet")
    await eventually(async () => (await inboxOf(gw, 604))[0]?.receipts.length === 1, "the receipt")
    const [item] = await inboxOf(gw, 604)
    expect(item).toMatchObject({ status: "processed", reply: "shh", receipts: [{ kind: "reply", status: "suppressed", attempts: 0 }] })
    expect(replies(604)).toEqual([])
    await command("/send on", "quiet", 604)
    await post(gw, 604, 2, "again", "quiet")
    await eventually(() => replies(604).length === 1, "the reply")
  })
})

/** Storage that outlives one gateway: a SQLite file, or one PostgreSQL schema. */
const persistentStores = [
  {
    name: "sqlite file",
    make: async () => {
      const file = join(mkdtempSync(join(tmpdir(), "svc-messenger-db-")), "gateway.db")
      return { layer: () => storageLayer({ kind: "sqlite", filename: file }), drop: async () => {} }
    }
  },
  ...(postgresUrl === undefined ? [] : [{ name: "postgresql", make: () => sharedPostgresSchema(postgresUrl!) }])
]

for (const store of persistentStores) describe(`messenger restarts (${store.name})`, () => {
  it("runs an update left running by a stopped gateway when it starts again", async () => {
    const db = await store.make()
    const bot = await startMessengerServer()
    const gate = await startGate()
    const home = homeFor(gate.url)
    try {
      const first = await startGateway(settingsFor(bot, home), db.layer())
      try {
        await post(first, 605, 1, "one")
        await eventually(() => gate.hits() === 1, "the turn at the gate")
      } finally {
        await first.close()
      }
      expect(bot.callsOf("sendMessage")).toEqual([])
      const second = await startGateway(settingsFor(bot, home), db.layer())
      try {
        await eventually(() => gate.hits() === 2, "the turn started again")
        gate.release()
        await eventually(() => bot.callsOf("sendMessage").length === 1, "the reply")
        expect(bot.callsOf("sendMessage")[0].body).toMatchObject({ chat_id: "605", text: "first done" })
        const [item] = await inboxOf(second, 605)
        expect(item).toMatchObject({ status: "processed", attempts: 2 })
      } finally {
        await second.close()
      }
    } finally {
      await gate.close()
      await bot.close()
      await db.drop()
    }
  }, 60_000)
})
