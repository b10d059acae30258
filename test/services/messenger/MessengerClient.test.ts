/**
 * The messenger Bot API client (services/messenger/MessengerClient.ts)
 * against a local server speaking that shape, and against a stand-in inside
 * the test's runtime where the backoff runs on the TestClock: retried on 5xx
 * and 429 (200, 400, 800 ms, at most 4 calls), cut at the call deadline,
 * final on another refusal, and its failures never carry the token (which is
 * in the URL).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Redacted } from "effect"
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

/**
 * A Bot API stand-in inside the test's runtime (so the backoff runs on the TestClock): `answer(n)` for the n-th call
 * (from 1), `"stall"` being headers without a body end. `calls` records the clock time of each call.
 */
const fakeApi = (answer: (n: number) => { readonly status: number } | "stall") => {
  const calls: Array<number> = []
  const http = HttpClient.make((request) =>
    Effect.map(Clock.currentTimeMillis, (at) => {
      calls.push(at)
      const a = answer(calls.length)
      const body = a === "stall"
        ? new ReadableStream({ start() {} })
        : JSON.stringify(a.status === 200 ? { ok: true, result: true } : { ok: false, error_code: a.status, description: "Bad Gateway" })
      return HttpClientResponse.fromWeb(request, new Response(body, { status: a === "stall" ? 200 : a.status }))
    })
  )
  const layer = MessengerClient.layerNoDeps.pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, http)),
    Layer.provide(Layer.succeed(GatewayConfig, { ...testSettings(), messengerBotToken: Redacted.make(TOKEN), messengerApiUrl: "http://bot.invalid" }))
  )
  return { calls, layer }
}
const sendMessage = (layer: Layer.Layer<MessengerClient>) =>
  Effect.provide(Effect.flatMap(Effect.service(MessengerClient), (c) => c.sendMessage("42", "x")), layer)
const answerCallbackQuery = (layer: Layer.Layer<MessengerClient>) =>
  Effect.provide(Effect.flatMap(Effect.service(MessengerClient), (c) => c.answerCallbackQuery("q1", "ok")), layer)
const editMessageText = (layer: Layer.Layer<MessengerClient>) =>
  Effect.provide(Effect.flatMap(Effect.service(MessengerClient), (c) => c.editMessageText("42", "7", "done")), layer)

/** Runs `effect` to its end under the TestClock, moving the clock 100 ms at a time (the backoff's steps) while it runs. */
const settle = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(Effect.result(effect))
    for (let i = 0; i < 1000 && fiber.pollUnsafe() === undefined; i++) {
      yield* TestClock.adjust("100 millis")
      // Lets a body read (a real promise) finish before the clock moves on.
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
    return yield* Fiber.join(fiber)
  })

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

  it("sends a text over the Bot API's 4096 characters as several messages in order, the buttons with the last", async () => {
    const paragraph = "line of a long answer ".repeat(40).trim()
    const text = Array.from({ length: 12 }, (_, i) => `${i}: ${paragraph}`).join("\n")
    expect(text.length).toBeGreaterThan(2 * 4096)
    const before = bot.calls.length
    const result = await run(Effect.flatMap(Effect.service(MessengerClient), (c) => c.sendMessage("42", text, [[{ text: "Approve", callback_data: "x" }]])))
    const sent = bot.calls.slice(before)
    expect(sent.length).toBe(3)
    expect(result).toMatchObject({ _tag: "Success", success: { attempts: 3, message_id: String(sent[2]!.messageId) } })
    const texts = sent.map((call) => (call.body as { text: string }).text)
    for (const part of texts) expect(Array.from(part).length).toBeLessThanOrEqual(4096)
    // Cut at line breaks: the parts joined by them are the text.
    expect(texts.join("\n")).toBe(text)
    expect(sent.map((call) => "reply_markup" in (call.body as object))).toEqual([false, false, true])
  })

  it.effect("retries 5xx and 429 with backoff (200, 400, 800 ms), then gives up after 4 calls", () =>
    Effect.gen(function*() {
      const once429 = fakeApi((n) => (n === 1 ? { status: 429 } : { status: 200 }))
      expect(yield* settle(answerCallbackQuery(once429.layer))).toMatchObject({ _tag: "Success", success: { attempts: 2 } })
      expect(once429.calls).toEqual([0, 200])
      const down = fakeApi(() => ({ status: 503 }))
      expect(yield* settle(editMessageText(down.layer))).toMatchObject({
        _tag: "Failure",
        failure: { method: "editMessageText", attempts: 4, message: "editMessageText: HTTP 503 (Bad Gateway)" }
      })
      expect(down.calls.map((at) => at - down.calls[0]!)).toEqual([0, 200, 600, 1400])
    }))

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
      const stalled = fakeApi(() => "stall")
      const fiber = yield* Effect.forkChild(Effect.result(sendMessage(stalled.layer)))
      for (let i = 0; i < 5; i++) yield* TestClock.adjust(CALL_TIMEOUT)
      // Ended by now (not hanging on the body): a pending fiber here is the defect.
      expect(fiber.pollUnsafe()).toBeDefined()
      expect(yield* Fiber.join(fiber)).toMatchObject({
        _tag: "Failure",
        failure: { method: "sendMessage", attempts: MAX_ATTEMPTS, message: "sendMessage: no answer in time", retryable: true }
      })
    }))
})
