/**
 * The messenger Bot API client (services/messenger/MessengerClient.ts)
 * against a local server speaking that shape: retried on 5xx and 429 (with
 * backoff, at most 4 calls), final on another refusal, and its failures
 * never carry the token (which is in the URL).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Redacted } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { GatewayConfig } from "../../../layers/config.ts"
import { CALL_TIMEOUT, MAX_ATTEMPTS, MessengerClient } from "../../../services/messenger/MessengerClient.ts"
import { testSettings } from "../../support/gateway.ts"
import { type MessengerServer, startMessengerServer } from "../../support/messengerServer.ts"

let bot: MessengerServer
beforeAll(async () => {
  bot = await startMessengerServer()
})
afterAll(() => bot.close())

const TOKEN = "31337:very-secret-token"
const client = (token: string | null) =>
  MessengerClient.layer.pipe(Layer.provide(Layer.succeed(GatewayConfig, {
    ...testSettings(),
    messengerBotToken: token === null ? undefined : Redacted.make(token),
    messengerApiUrl: bot.url
  })))
const run = <A, E>(effect: Effect.Effect<A, E, MessengerClient>, token: string | null = TOKEN) =>
  Effect.runPromise(Effect.result(Effect.provide(effect, client(token))))

describe("MessengerClient", () => {
  it("posts the Bot API shape and answers the message id", async () => {
    const result = await run(Effect.flatMap(Effect.service(MessengerClient), (c) => c.sendMessage("42", "hi", [[{ text: "Approve", callback_data: "x" }]])))
    expect(result).toMatchObject({ _tag: "Success", success: { attempts: 1, message_id: expect.stringMatching(/^\d+$/) } })
    expect(bot.calls.at(-1)).toEqual({
      token: TOKEN,
      method: "sendMessage",
      body: { chat_id: "42", text: "hi", reply_markup: { inline_keyboard: [[{ text: "Approve", callback_data: "x" }]] } },
      messageId: expect.any(Number)
    })
  })

  it("retries 5xx and 429, then gives up after 4 calls", async () => {
    bot.failNext(1, 429)
    expect(await run(Effect.flatMap(Effect.service(MessengerClient), (c) => c.answerCallbackQuery("q1", "ok")))).toMatchObject({ success: { attempts: 2 } })
    bot.failNext(9, 503)
    const failed = await run(Effect.flatMap(Effect.service(MessengerClient), (c) => c.editMessageText("42", "7", "done")))
    expect(failed).toMatchObject({ _tag: "Failure", failure: { method: "editMessageText", attempts: 4, message: "editMessageText: HTTP 503 (Bad Gateway)" } })
    bot.failNext(0, 503)
  })

  it("does not retry another refusal, and never names the token", async () => {
    bot.failNext(1, 400)
    const failed = await run(Effect.flatMap(Effect.service(MessengerClient), (c) => c.sendMessage("42", "x")))
    expect(failed).toMatchObject({ _tag: "Failure", failure: { attempts: 1, retryable: false } })
    expect(JSON.stringify(failed)).not.toContain("very-secret-token")
    const unset = await run(Effect.flatMap(Effect.service(MessengerClient), (c) => c.sendMessage("42", "x")), null)
    expect(unset).toMatchObject({ _tag: "Failure", failure: { attempts: 0, message: "sendMessage: MESSENGER_BOT_TOKEN is not set" } })
  })

  it.effect("cuts an answer whose body never ends at the call deadline (the delivery does not hang)", () =>
    Effect.gen(function*() {
      // Headers at once, then a body that never completes: the deadline covers reading it too.
      const stalled = HttpClient.make((request) =>
        Effect.succeed(HttpClientResponse.fromWeb(request, new Response(new ReadableStream({ start() {} }), { status: 200 })))
      )
      const layer = MessengerClient.layerNoDeps.pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, stalled)),
        Layer.provide(Layer.succeed(GatewayConfig, { ...testSettings(), messengerBotToken: Redacted.make(TOKEN), messengerApiUrl: "http://bot.invalid" }))
      )
      const fiber = yield* Effect.flatMap(Effect.service(MessengerClient), (c) => c.sendMessage("42", "x")).pipe(
        Effect.provide(layer),
        Effect.result,
        Effect.forkChild
      )
      yield* TestClock.adjust(CALL_TIMEOUT)
      yield* TestClock.adjust("1 minute")
      yield* TestClock.adjust("1 minute")
      yield* TestClock.adjust("1 minute")
      yield* TestClock.adjust("1 minute")
      // Ended by now (not hanging on the body): a pending fiber here is the defect.
      expect(fiber.pollUnsafe()).toBeDefined()
      expect(yield* Fiber.join(fiber)).toMatchObject({
        _tag: "Failure",
        failure: { method: "sendMessage", attempts: MAX_ATTEMPTS, message: "sendMessage: no answer in time", retryable: true }
      })
    }))
})
