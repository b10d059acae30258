/**
 * The messenger inbox repository on SQLite and, when SVC_TEST_DATABASE_URL is
 * set, PostgreSQL (services/messenger/InboxRepo.ts): concurrent copies of one
 * update are one row (the unique index; the others count as duplicates),
 * claims are conditional, and a used approval prompt cannot be used again.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { InboxRepo, type NewInboxItem } from "../../../services/messenger/InboxRepo.ts"
import { testDatabases } from "../../support/databases.ts"

const AT = "2026-11-27T10:00:00.000Z"

const item = (chat: string, messageId: string): NewInboxItem => ({
  account: "42",
  chat_id: chat,
  message_id: messageId,
  agent_id: "default",
  session_key: `agent:default:messenger:${chat}`,
  text: `hello ${messageId}`,
  envelope: {
    message_id: messageId,
    received_at: AT,
    delivery: { channel: "messenger", account: "42" },
    container: { kind: "dm", id: chat },
    sender: { id: chat },
    content: { text: `hello ${messageId}`, attachments: [] },
    provenance: ["user"]
  },
  received_at: AT,
  queued_at: AT
})

for (const db of testDatabases) {
  layer(InboxRepo.layer.pipe(Layer.provide(db.make())))(`InboxRepo (${db.name})`, (it) => {
    it.effect("keeps one row for concurrent copies of an update and counts the others", () =>
      Effect.gen(function*() {
        const repo = yield* InboxRepo
        const results = yield* Effect.forEach(Array.from({ length: 8 }, () => item("1", "7")), repo.enqueue, { concurrency: "unbounded" })
        expect(results.filter((r) => !r.deduped)).toHaveLength(1)
        expect(new Set(results.map((r) => r.inbox_id)).size).toBe(1)
        const row = yield* repo.get(results[0].inbox_id)
        expect(row).toMatchObject({ status: "queued", duplicates: 7, attempts: 0, text: "hello 7" })
        expect(row!.envelope.content.text).toBe("hello 7")
        // The same message id in another chat, or for another account, is another update.
        expect((yield* repo.enqueue(item("2", "7"))).deduped).toBe(false)
        expect((yield* repo.enqueue({ ...item("1", "7"), account: "43" })).deduped).toBe(false)
        expect((yield* repo.counts)).toMatchObject({ queued: 3, deduplicated: 7 })
      }))

    it.effect("claims pending items conditionally and lists a lane's pending items in order", () =>
      Effect.gen(function*() {
        const repo = yield* InboxRepo
        const a = yield* repo.enqueue(item("lane", "1"))
        const b = yield* repo.enqueue(item("lane", "2"))
        expect((yield* repo.pendingIn("agent:default:messenger:lane")).map((r) => r.inbox_id)).toEqual([a.inbox_id, b.inbox_id])
        expect(yield* repo.claim([a.inbox_id], AT)).toEqual([a.inbox_id])
        yield* repo.finish([a.inbox_id], { status: "processed", reply: "hi" }, AT)
        expect(yield* repo.claim([a.inbox_id], AT)).toEqual([])
        expect((yield* repo.get(a.inbox_id))).toMatchObject({ status: "processed", attempts: 1, reply: "hi" })
        expect(yield* repo.pendingLanes).toContain("agent:default:messenger:lane")
      }))

    it.effect("uses an approval prompt once", () =>
      Effect.gen(function*() {
        const repo = yield* InboxRepo
        const prompt = { approval_id: 5, account: "42", chat_id: "1", nonce: "abcdefgh", platform_message_id: null, created_at: AT, used_at: null, used_by: null }
        expect(yield* repo.insertPrompt(prompt)).toBe(true)
        expect(yield* repo.insertPrompt(prompt)).toBe(false)
        const uses = yield* Effect.forEach([1, 2, 3], () => repo.usePrompt(5, AT, "1:1"), { concurrency: "unbounded" })
        expect(uses.filter(Boolean)).toHaveLength(1)
        expect((yield* repo.prompt(5))).toMatchObject({ used_at: AT, used_by: "1:1" })
      }))
  })
}
