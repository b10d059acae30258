/**
 * The messenger inbox worker's `interrupt` queue mode (services/messenger/InboxWorker.ts; docs/messenger.md "Queue
 * modes"), with a stand-in agent runtime whose turns end when the test says: an update stops the turn that runs when
 * it is accepted, never the turn that runs it. The session's mode is read while the running turn may end and the
 * lane start the next one (the new update's own): that next turn must not be stopped.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Redacted } from "effect"
import { GatewayConfig } from "../../../layers/config.ts"
import type { AgentSessionRow } from "../../../services/agent/AgentRepo.ts"
import { AgentRuntime } from "../../../services/agent/AgentRuntime.ts"
import { type AgentSessionSettingsRow, SessionSettingsRepo } from "../../../services/agent/SessionSettingsRepo.ts"
import { Wakes } from "../../../services/backplane/wakes.ts"
import { Deliveries } from "../../../services/messenger/Deliveries.ts"
import { InboxRepo, type NewInboxItem } from "../../../services/messenger/InboxRepo.ts"
import { InboxWorker, laneOf } from "../../../services/messenger/InboxWorker.ts"
import { MessengerClient } from "../../../services/messenger/MessengerClient.ts"
import { sqliteMemory } from "../../support/databases.ts"
import { testSettings } from "../../support/gateway.ts"

const AT = "2026-11-27T10:00:00.000Z"
const CHAT = "4242"
const LANE = laneOf("default", CHAT)
const SESSION: AgentSessionRow = {
  session_id: "s-1",
  agent_id: "default",
  channel: "messenger",
  thread_id: CHAT,
  workspace_id: "default",
  model: null,
  summary: null,
  created_at: AT,
  last_turn_at: null
}

const update = (messageId: string): NewInboxItem => ({
  account: "42",
  chat_id: CHAT,
  message_id: messageId,
  agent_id: "default",
  session_key: LANE,
  text: `message ${messageId}`,
  envelope: {
    message_id: messageId,
    received_at: AT,
    delivery: { channel: "messenger", account: "42" },
    container: { kind: "dm", id: CHAT },
    sender: { id: CHAT },
    content: { text: `message ${messageId}`, attachments: [] },
    provenance: ["user"]
  },
  received_at: AT,
  queued_at: AT
})

/** Polls `check` (real time) until it holds; fails after 10 s. */
const until = (check: () => boolean, what: string) =>
  Effect.promise(async () => {
    const deadline = Date.now() + 10_000
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })

describe("InboxWorker (queue mode interrupt)", () => {
  it.live("stops the turn running when an update is accepted, not the update's own turn that started meanwhile", () =>
    Effect.gen(function*() {
      /** The turns started, each ended by completing `done` with its reply. */
      const turns: Array<{ readonly message: string; readonly done: Deferred.Deferred<string> }> = []
      const stopped: Array<string> = []
      const runtime: Pick<AgentRuntime["Service"], "sessionFor" | "turnIn" | "stopTurn"> = {
        sessionFor: () => Effect.succeed(SESSION),
        turnIn: (session, message) =>
          Effect.gen(function*() {
            const done = yield* Deferred.make<string>()
            turns.push({ message, done })
            return { reply: yield* Deferred.await(done), session_id: session.session_id, used_tools: [], memory_written: false }
          }),
        // `/stop`: ends the running turn (the last started) with its partial reply.
        stopTurn: () =>
          Effect.suspend(() => {
            stopped.push(turns.at(-1)?.message ?? "none")
            const running = turns.at(-1)
            return running === undefined ? Effect.succeed(false) : Deferred.succeed(running.done, "partial")
          })
      }
      // The session's settings: queue mode interrupt; one read can be held (`hold`) until `release` completes.
      let hold: { readonly reached: Deferred.Deferred<void>; readonly release: Deferred.Deferred<void> } | undefined
      const row: AgentSessionSettingsRow = { session_id: SESSION.session_id, queue_mode: "interrupt", send_policy: null, updated_at: AT }
      const settingsRepo: Pick<SessionSettingsRepo["Service"], "get"> = {
        get: () =>
          Effect.suspend(() => {
            const held = hold
            hold = undefined
            return held === undefined
              ? Effect.succeed(row)
              : Effect.andThen(Deferred.succeed(held.reached, undefined), Effect.as(Deferred.await(held.release), row))
          })
      }
      const sent: Array<string> = []
      const client: Pick<MessengerClient["Service"], "sendMessage"> = {
        sendMessage: (_chat, text) =>
          Effect.sync(() => {
            sent.push(text)
            return { attempts: 1 }
          })
      }
      const worker = InboxWorker.layerNoDeps.pipe(
        Layer.provideMerge(Deliveries.layer),
        Layer.provideMerge(InboxRepo.layer),
        Layer.provide(Layer.succeed(AgentRuntime, runtime as AgentRuntime["Service"])),
        Layer.provide(Layer.succeed(SessionSettingsRepo, settingsRepo as SessionSettingsRepo["Service"])),
        Layer.provide(Layer.succeed(MessengerClient, client as MessengerClient["Service"])),
        Layer.provide(Wakes.layerLocal),
        Layer.provideMerge(sqliteMemory.make()),
        Layer.provide(Layer.succeed(GatewayConfig, { ...testSettings(), agentEnabled: true, messengerBotToken: Redacted.make("42:token") }))
      )
      yield* Effect.gen(function*() {
        const inbox = yield* InboxWorker
        const repo = yield* InboxRepo
        yield* inbox.enqueue(update("1"))
        yield* until(() => turns.length === 1, "the first turn")

        // The second update is accepted while the first turn runs; its mode read is held.
        const held = { reached: yield* Deferred.make<void>(), release: yield* Deferred.make<void>() }
        hold = held
        const accepting = yield* Effect.forkChild(inbox.enqueue(update("2")))
        yield* Deferred.await(held.reached)
        // Meanwhile the first turn ends and the lane starts the second update's turn.
        yield* Deferred.succeed(turns[0]!.done, "reply 1")
        yield* until(() => turns.length === 2, "the second update's turn")
        // Now the mode read answers "interrupt": the turn it was about to stop is gone; the one running is the new one's.
        yield* Deferred.succeed(held.release, undefined)
        yield* Fiber.join(accepting)
        yield* Deferred.succeed(turns[1]!.done, "reply 2")
        const finished = Effect.map(repo.list({ limit: 10 }), (items) => items.every((item) => item.status !== "queued" && item.status !== "running"))
        for (let i = 0; i < 2000 && !(yield* finished); i++) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))

        expect(stopped).toEqual([])
        const items = yield* repo.list({ limit: 10 })
        expect(items.map((item) => [item.message_id, item.status, item.reply])).toEqual([["2", "processed", "reply 2"], ["1", "processed", "reply 1"]])
        yield* until(() => sent.length === 2, "both replies")
        expect(sent).toEqual(["reply 1", "reply 2"])
      }).pipe(Effect.provide(worker))
    }))
})
