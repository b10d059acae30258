/**
 * The Anthropic provider layer against a local server speaking the messages
 * wire shape: a plain turn (system field, headers), a tool_use round trip
 * through `generateText` + a Toolkit (tool_result blocks in the next
 * request), streaming (message_start / content_block_delta /
 * input_json_delta / message_delta usage), provider errors mapped to
 * `AgentRuntimeError` without the key, and a timeout.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import { LanguageModel, Prompt, type Response } from "effect/ai"
import * as Anthropic from "../../../../services/agent/providers/anthropic.ts"
import { API_KEY, runtimeErrorOf as runtimeErrorOfProvider, weatherHandlers, WeatherToolkit, withModelOf } from "./support.ts"

const message = (content: ReadonlyArray<unknown>, stop_reason = "end_turn") => ({
  json: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content,
    stop_reason,
    usage: { input_tokens: 20, output_tokens: 7, cache_read_input_tokens: 4 }
  }
})

const withModel = withModelOf(Anthropic.layer, "claude-sonnet-4-5")
const runtimeErrorOf = runtimeErrorOfProvider("anthropic")

describe("Anthropic provider", () => {
  it.live("a plain text turn: <base>/messages, x-api-key, anthropic-version, system field, usage", () =>
    withModel([message([{ type: "text", text: "Hello there" }])], ({ seen }) =>
      Effect.gen(function*() {
        const response = yield* LanguageModel.generateText({
          prompt: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }]
        })
        expect(response.text).toBe("Hello there")
        expect(response.finishReason).toBe("stop")
        expect(response.usage.inputTokens.total).toBe(24)
        expect(response.usage.inputTokens.cacheRead).toBe(4)
        expect(response.usage.outputTokens.total).toBe(7)
        expect(seen[0].path).toBe("/v1/messages")
        expect(seen[0].headers["x-api-key"]).toBe(API_KEY)
        expect(seen[0].headers["anthropic-version"]).toBe("2023-06-01")
        expect(seen[0].headers.authorization).toBeUndefined()
        expect(seen[0].body).toEqual({
          model: "claude-sonnet-4-5",
          max_tokens: 4096,
          system: "Be brief.",
          messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }]
        })
      })))

  it.live("a tool_use round trip: the Toolkit runs it, tool_result blocks go back in a user message", () => {
    const handlers = weatherHandlers()
    return withModel(
      [
        message([
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }
        ], "tool_use"),
        message([{ type: "text", text: "Sunny in Paris." }])
      ],
      ({ seen }) =>
        Effect.gen(function*() {
          const prompt = Prompt.make("Weather in Paris?")
          const first = yield* LanguageModel.generateText({ prompt, toolkit: WeatherToolkit })
          expect(first.finishReason).toBe("tool-calls")
          expect(first.toolCalls.map((call) => [call.id, call.params])).toEqual([["toolu_1", { city: "Paris" }]])
          expect(handlers.calls).toEqual(["Paris"])
          expect(seen[0].body.tools).toEqual([{
            name: "get_weather",
            description: "The weather in a city",
            input_schema: expect.objectContaining({ type: "object", properties: { city: { type: "string" } } })
          }])
          expect(seen[0].body.tool_choice).toEqual({ type: "auto" })

          const second = yield* LanguageModel.generateText({
            prompt: Prompt.concat(prompt, Prompt.fromResponseParts(first.content)),
            toolkit: WeatherToolkit
          })
          expect(second.text).toBe("Sunny in Paris.")
          expect(seen[1].body.messages).toEqual([
            { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
            {
              role: "assistant",
              content: [
                { type: "text", text: "Let me check." },
                { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }
              ]
            },
            {
              role: "user",
              content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "{\"city\":\"Paris\",\"forecast\":\"sunny\"}" }]
            }
          ])
        }).pipe(Effect.provide(handlers.layer))
    )
  })

  it.live("streaming: text deltas, input_json_delta tool input, usage from message_start and message_delta", () => {
    const handlers = weatherHandlers()
    return withModel(
      [{
        sse: [
          {
            event: "message_start",
            data: { type: "message_start", message: { id: "msg_s", model: "claude-sonnet-4-5", usage: { input_tokens: 11, output_tokens: 1 } } }
          },
          { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
          { event: "ping", data: { type: "ping" } },
          { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Checking" } } },
          { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: " now" } } },
          { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
          {
            event: "content_block_start",
            data: { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_s", name: "get_weather", input: {} } }
          },
          { event: "content_block_delta", data: { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "{\"city\": " } } },
          { event: "content_block_delta", data: { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "\"Rome\"}" } } },
          { event: "content_block_stop", data: { type: "content_block_stop", index: 1 } },
          { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } } },
          { event: "message_stop", data: { type: "message_stop" } }
        ]
      }],
      ({ seen }) =>
        Effect.gen(function*() {
          const parts = yield* LanguageModel.streamText({ prompt: "Weather in Rome?", toolkit: WeatherToolkit }).pipe(Stream.runCollect)
          expect(parts.flatMap((part) => part.type === "text-delta" ? [part.delta] : [])).toEqual(["Checking", " now"])
          expect(parts.find((part) => part.type === "tool-call")?.params).toEqual({ city: "Rome" })
          expect(handlers.calls).toEqual(["Rome"])
          const finish = parts.find((part): part is Response.FinishPart => part.type === "finish")
          expect(finish?.reason).toBe("tool-calls")
          expect(finish?.usage.inputTokens.total).toBe(11)
          expect(finish?.usage.outputTokens.total).toBe(9)
          expect(seen[0].body.stream).toBe(true)
        }).pipe(Effect.provide(handlers.layer))
    )
  })

  it.live("a 4xx and a 5xx are AgentRuntimeErrors with the provider's message and never the key", () =>
    withModel(
      [
        { status: 401, json: { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${API_KEY}` } } },
        { status: 529, json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } }
      ],
      () =>
        Effect.gen(function*() {
          const unauthorized = yield* runtimeErrorOf(LanguageModel.generateText({ prompt: "Hi" }))
          expect(unauthorized.message).toBe("anthropic: invalid x-api-key [redacted] (HTTP 401)")
          expect(JSON.stringify(unauthorized)).not.toContain(API_KEY)
          const overloaded = yield* runtimeErrorOf(LanguageModel.streamText({ prompt: "Hi" }).pipe(Stream.runDrain))
          expect(overloaded.message).toBe("anthropic: Overloaded (HTTP 529)")
        })
    ))

  it.live("an error event inside the stream fails it with the event's message", () =>
    withModel(
      [{
        sse: [
          { event: "message_start", data: { type: "message_start", message: { id: "m", usage: { input_tokens: 1 } } } },
          { event: "error", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } }
        ]
      }],
      () =>
        Effect.gen(function*() {
          const error = yield* runtimeErrorOf(LanguageModel.streamText({ prompt: "Hi" }).pipe(Stream.runDrain))
          expect(error.message).toBe("anthropic: Overloaded")
        })
    ))

  it.live("a malformed body is an AgentRuntimeError", () =>
    withModel([{ json: { content: "nope" } }], () =>
      Effect.gen(function*() {
        const error = yield* runtimeErrorOf(LanguageModel.generateText({ prompt: "Hi" }))
        expect(error.message).toMatch(/^anthropic: malformed response: content: expected an array/)
      })))

  it.live("generateObject: a forced object tool whose input is the object", () =>
    withModel(
      [message([
        { type: "text", text: "Here it is:" },
        { type: "tool_use", id: "toolu_o", name: "weather", input: { city: "Paris", degrees: 21 } }
      ], "tool_use")],
      ({ seen }) =>
        Effect.gen(function*() {
          const response = yield* LanguageModel.generateObject({
            prompt: "Weather?",
            objectName: "weather",
            schema: Schema.Struct({ city: Schema.String, degrees: Schema.Number })
          })
          expect(response.value).toEqual({ city: "Paris", degrees: 21 })
          expect(seen[0].body.tool_choice).toEqual({ type: "tool", name: "weather" })
          expect(seen[0].body.tools).toEqual([{ name: "weather", input_schema: expect.objectContaining({ type: "object" }) }])
        })
    ))

  it.live("a server that never answers: request timed out after the configured timeout", () =>
    withModel([{ hang: true }], () =>
      Effect.gen(function*() {
        const error = yield* runtimeErrorOf(LanguageModel.generateText({ prompt: "Hi" }))
        expect(error.message).toBe("anthropic: request timed out after 0.15s")
      }), 150))
})
