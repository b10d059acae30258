/**
 * The messenger flood (issue 26 §3): 1,000 updates, 20% of them duplicates
 * (posted interleaved and concurrently with their originals), produce exactly
 * one agent turn and one delivered reply per distinct message, on SQLite and,
 * when SVC_TEST_DATABASE_URL is set, PostgreSQL (the unique index makes the
 * deduplication race-safe on both).
 */
import { Effect, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { postgres } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { type MessengerServer, startMessengerServer, textUpdate } from "../support/messengerServer.ts"

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

const SECRET = "flood-secret"
const CHATS = 40
const DISTINCT = 800
const DUPLICATES = 200
const CONCURRENCY = 16

/** A deterministic shuffle (a linear congruential generator), so a failure replays. */
const shuffled = <A>(items: ReadonlyArray<A>, seed: number): Array<A> => {
  const out = [...items]
  let state = seed
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648
    const j = state % (i + 1)
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

/** 800 distinct updates over 40 chats plus 200 repeats of some of them, interleaved. */
const updates = () => {
  const distinct = Array.from({ length: DISTINCT }, (_, i) => ({ chat: 9000 + (i % CHATS), id: Math.floor(i / CHATS) + 1 }))
  const repeats = Array.from({ length: DUPLICATES }, (_, i) => distinct[(i * 7) % DISTINCT])
  return shuffled([...distinct, ...repeats], 42)
}

const count = (gw: TestGateway, table: string) =>
  gw.run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM ${sql(table)}`
    return Schema.decodeUnknownSync(Schema.Struct({ n: Schema.Number }))(rows[0]).n
  }))

for (const database of databases) describe(`messenger flood (${database.name})`, () => {
  let gw: TestGateway
  let bot: MessengerServer
  beforeAll(async () => {
    bot = await startMessengerServer()
    gw = await startGateway({
      rateLimitMax: 100_000,
      agentEnabled: true,
      messengerBotToken: Redacted.make("777:flood"),
      messengerWebhookSecret: Redacted.make(SECRET),
      messengerApiUrl: bot.url
    }, database.storage())
  })
  afterAll(async () => {
    await gw?.close()
    await bot?.close()
  })

  it("runs exactly one turn per distinct message", async () => {
    const queue = updates()
    const answers: Array<{ deduped: boolean; inbox_id: number }> = []
    const worker = async () => {
      while (queue.length > 0) {
        const next = queue.shift()!
        const res = await postJson(gw, "/ingress/messenger", textUpdate(next.chat, next.id, `m ${next.chat}/${next.id}`), gw.adminToken, {
          "x-messenger-bot-api-secret-token": SECRET
        })
        expect(res.status).toBe(200)
        answers.push(await readJson(res))
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))
    expect(answers.filter((a) => !a.deduped)).toHaveLength(DISTINCT)
    expect(answers.filter((a) => a.deduped)).toHaveLength(DUPLICATES)
    expect(new Set(answers.map((a) => a.inbox_id)).size).toBe(DISTINCT)

    await eventually(() => bot.callsOf("sendMessage").length >= DISTINCT, "every reply", 50_000)
    const sent = bot.callsOf("sendMessage").map((call) => `${call.body.chat_id}|${call.body.text}`)
    expect(sent).toHaveLength(DISTINCT)
    expect(new Set(sent).size).toBe(DISTINCT)
    // One turn per distinct message: one context report and one stored user message each.
    expect(await count(gw, "agent_context_reports")).toBe(DISTINCT)
    expect(await count(gw, "messenger_inbox")).toBe(DISTINCT)
    const inbox = await readJson(await gw.fetch("/ingress/messenger/inbox?limit=1", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    expect(inbox.counts).toEqual({ queued: 0, running: 0, processed: DISTINCT, interrupted: 0, failed: 0, deduplicated: DUPLICATES })
  }, 60_000)
})
