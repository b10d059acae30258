/**
 * The OpenAI-compatible provider layer against a local server speaking the
 * chat completions wire shape: a plain turn, a tool call round trip through
 * `generateText` + a Toolkit (the results sent back in the next request),
 * streaming (text deltas, tool-call argument fragments, usage, the
 * `stream_options.include_usage` flag), provider errors (4xx/5xx, malformed
 * body) mapped to `AgentRuntimeError` without the key, and a timeout.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import { LanguageModel, Prompt, type Response } from "effect/ai"
import { AgentRuntimeError } from "../../../../services/agent/providers/errors.ts"
import * as OpenAi from "../../../../services/agent/providers/openai.ts"
import { API_KEY, runtimeErrorOf as runtimeErrorOfProvider, weatherHandlers, WeatherToolkit, withModelOf } from "./support.ts"

const completion = (message: Record<string, unknown>, finish_reason = "stop") => ({
  json: {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "gpt-4.1-mini",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason }],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }
  }
})

const withModel = withModelOf(OpenAi.layer, "gpt-4.1-mini")
const runtimeErrorOf = runtimeErrorOfProvider("openai")

describe("OpenAI-compatible provider", () => {
  it.live("a plain text turn: request to <base>/chat/completions, text, finish reason and usage", () =>
    withModel([completion({ content: "Hello there" })], ({ seen }) =>
      Effect.gen(function*() {
        const response = yield* LanguageModel.generateText({
          prompt: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }]
        })
        expect(response.text).toBe("Hello there")
        expect(response.finishReason).toBe("stop")
        expect(response.usage.inputTokens.total).toBe(12)
        expect(response.usage.outputTokens.total).toBe(5)
        expect(seen).toHaveLength(1)
        expect(seen[0].path).toBe("/v1/chat/completions")
        expect(seen[0].headers.authorization).toBe(`Bearer ${API_KEY}`)
        expect(seen[0].body).toEqual({
          model: "gpt-4.1-mini",
          messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }]
        })
      })))

  it.live("a tool call round trip: tool_calls run through the Toolkit, results sent back as tool messages", () => {
    const handlers = weatherHandlers()
    return withModel(
      [
        completion({
          content: null,
          tool_calls: [{ id: "call_abc", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } }]
        }, "tool_calls"),
        completion({ content: "It is sunny in Paris." })
      ],
      ({ seen }) =>
        Effect.gen(function*() {
          const prompt = Prompt.make("Weather in Paris?")
          const first = yield* LanguageModel.generateText({ prompt, toolkit: WeatherToolkit })
          expect(first.finishReason).toBe("tool-calls")
          expect(first.toolCalls.map((call) => [call.id, call.name, call.params])).toEqual([["call_abc", "get_weather", { city: "Paris" }]])
          expect(handlers.calls).toEqual(["Paris"])
          expect(first.toolResults[0]?.result).toEqual({ city: "Paris", forecast: "sunny" })
          expect(seen[0].body.tools).toEqual([{
            type: "function",
            function: {
              name: "get_weather",
              description: "The weather in a city",
              parameters: expect.objectContaining({ type: "object", properties: { city: { type: "string" } }, required: ["city"] })
            }
          }])
          expect(seen[0].body.tool_choice).toBe("auto")

          const second = yield* LanguageModel.generateText({
            prompt: Prompt.concat(prompt, Prompt.fromResponseParts(first.content)),
            toolkit: WeatherToolkit
          })
          expect(second.text).toBe("It is sunny in Paris.")
          expect(seen[1].body.messages).toEqual([
            { role: "user", content: "Weather in Paris?" },
            {
              role: "assistant",
              content: null,
              tool_calls: [{ id: "call_abc", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } }]
            },
            { role: "tool", tool_call_id: "call_abc", content: "{\"city\":\"Paris\",\"forecast\":\"sunny\"}" }
          ])
        }).pipe(Effect.provide(handlers.layer))
    )
  })

  it.live("tool_choice: required and a named tool", () =>
    withModel([completion({ content: "ok" })], ({ seen }) =>
      Effect.gen(function*() {
        yield* LanguageModel.generateText({ prompt: "x", toolkit: WeatherToolkit, toolChoice: "required" })
        yield* LanguageModel.generateText({ prompt: "x", toolkit: WeatherToolkit, toolChoice: { tool: "get_weather" } })
        expect(seen[0].body.tool_choice).toBe("required")
        expect(seen[1].body.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } })
      }).pipe(Effect.provide(weatherHandlers().layer))))

  it.live("streaming: text deltas, usage, stream and stream_options.include_usage sent", () =>
    withModel(
      [{
        sse: [
          { data: { id: "c1", model: "gpt-4.1-mini", choices: [{ index: 0, delta: { role: "assistant", content: "" } }] } },
          { data: { id: "c1", model: "gpt-4.1-mini", choices: [{ index: 0, delta: { content: "Hello" } }] } },
          { data: { id: "c1", model: "gpt-4.1-mini", choices: [{ index: 0, delta: { content: " world" } }] } },
          { data: { id: "c1", model: "gpt-4.1-mini", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] } },
          { data: { id: "c1", model: "gpt-4.1-mini", choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } } },
          { data: "[DONE]" }
        ]
      }],
      ({ seen }) =>
        Effect.gen(function*() {
          const parts = yield* LanguageModel.streamText({ prompt: "Say hello" }).pipe(Stream.runCollect)
          const deltas = parts.flatMap((part) => part.type === "text-delta" ? [part.delta] : [])
          expect(deltas).toEqual(["Hello", " world"])
          const finish = parts.find((part): part is Response.FinishPart => part.type === "finish")
          expect(finish?.reason).toBe("stop")
          expect(finish?.usage.inputTokens.total).toBe(3)
          expect(finish?.usage.outputTokens.total).toBe(2)
          expect(seen[0].body.stream).toBe(true)
          expect(seen[0].body.stream_options).toEqual({ include_usage: true })
        })
    ))

  it.live("streaming: incremental tool-call arguments become one tool call", () =>
    withModel(
      [{
        sse: [
          {
            data: {
              id: "c2",
              choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } }] } }]
            }
          },
          { data: { id: "c2", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: "{\"city\":" } }] } }] } },
          { data: { id: "c2", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: "\"Oslo\"}" } }] } }] } },
          { data: { id: "c2", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] } },
          { data: "[DONE]" }
        ]
      }],
      () => {
        const handlers = weatherHandlers()
        return Effect.gen(function*() {
          const parts = yield* LanguageModel.streamText({ prompt: "Weather in Oslo?", toolkit: WeatherToolkit }).pipe(Stream.runCollect)
          expect(parts.filter((part) => part.type === "tool-params-delta").map((part) => part.delta)).toEqual(["{\"city\":", "\"Oslo\"}"])
          const call = parts.find((part) => part.type === "tool-call")
          expect(call?.params).toEqual({ city: "Oslo" })
          expect(handlers.calls).toEqual(["Oslo"])
          expect(parts.find((part) => part.type === "finish")?.reason).toBe("tool-calls")
        }).pipe(Effect.provide(handlers.layer))
      }
    ))

  it.live("a 401 is an AgentRuntimeError with the provider's message and never the key", () =>
    withModel(
      [{ status: 401, json: { error: { message: `Incorrect API key provided: ${API_KEY}.`, type: "invalid_request_error", code: "invalid_api_key" } } }],
      () =>
        Effect.gen(function*() {
          const error = yield* runtimeErrorOf(LanguageModel.generateText({ prompt: "Hi" }))
          expect(error).toBeInstanceOf(AgentRuntimeError)
          expect(error.message).toBe("openai: Incorrect API key provided: [redacted]. (HTTP 401)")
          expect(JSON.stringify(error)).not.toContain(API_KEY)
          expect(String(error)).not.toContain(API_KEY)
        })
    ))

  it.live("a 500 while streaming is an AgentRuntimeError with the provider's message", () =>
    withModel([{ status: 500, json: { error: { message: "The server had an error" } } }], () =>
      Effect.gen(function*() {
        const error = yield* runtimeErrorOf(LanguageModel.streamText({ prompt: "Hi" }).pipe(Stream.runDrain))
        expect(error.message).toBe("openai: The server had an error (HTTP 500)")
        expect(error.message).not.toContain(API_KEY)
      })))

  it.live("a malformed body is an AgentRuntimeError", () =>
    withModel([{ json: "this is not json" }, { json: { choices: "none" } }], () =>
      Effect.gen(function*() {
        const notJson = yield* runtimeErrorOf(LanguageModel.generateText({ prompt: "Hi" }))
        expect(notJson.message).toBe("openai: malformed response: the body is not JSON")
        const wrongShape = yield* runtimeErrorOf(LanguageModel.generateText({ prompt: "Hi" }))
        expect(wrongShape.message).toMatch(/^openai: malformed response: choices: expected an array/)
      })))

  it.live("a stream that starts, then goes quiet: stream stalled after the configured timeout", () =>
    withModel([{ sse: [{ data: { id: "c3", choices: [{ index: 0, delta: { content: "Hel" } }] } }], thenHang: true }], () =>
      Effect.gen(function*() {
        const error = yield* runtimeErrorOf(LanguageModel.streamText({ prompt: "Hi" }).pipe(Stream.runDrain))
        expect(error.message).toBe("openai: stream stalled: no event for 0.2s")
      }), 200))

  it.live("generateObject: response_format json_schema, the object decoded from the text", () =>
    withModel([completion({ content: "{\"city\":\"Paris\",\"degrees\":21}" })], ({ seen }) =>
      Effect.gen(function*() {
        const response = yield* LanguageModel.generateObject({
          prompt: "Weather?",
          objectName: "weather",
          schema: Schema.Struct({ city: Schema.String, degrees: Schema.Number })
        })
        expect(response.value).toEqual({ city: "Paris", degrees: 21 })
        expect(seen[0].body.response_format).toEqual({
          type: "json_schema",
          json_schema: { name: "weather", schema: expect.objectContaining({ type: "object" }) }
        })
      })))

  it.live("a server that never answers: request timed out after the configured timeout", () =>
    withModel([{ hang: true }], () =>
      Effect.gen(function*() {
        const error = yield* runtimeErrorOf(LanguageModel.generateText({ prompt: "Hi" }))
        expect(error.message).toBe("openai: request timed out after 0.2s")
        const streamed = yield* runtimeErrorOf(LanguageModel.streamText({ prompt: "Hi" }).pipe(Stream.runDrain))
        expect(streamed.message).toBe("openai: request timed out after 0.2s")
      }), 200))
})
