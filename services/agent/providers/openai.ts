/**
 * The OpenAI-compatible chat completions provider (issue 25 §1): Effect's
 * `LanguageModel` over `HttpClient`, `POST <baseUrl>/chat/completions`
 * (default base `https://api.openai.com/v1`, `Authorization: Bearer <key>`),
 * so any server speaking that shape works (vLLM, Ollama, LiteLLM, OpenRouter…).
 *
 * The request and response mapping follows the published
 * `@effect/ai-openai-compat` / `@effect/ai-openai` 4.0 betas, which cannot be
 * used here: they import `effect/unstable/*` paths effect 4.1 no longer has.
 * Swap this module for the official package when a release matches
 * effect 4.1.
 *
 * Request (`Prompt` → chat messages):
 * - `system` → `{role: "system", content}`;
 * - `user` → `{role: "user", content}`: text parts joined by a newline, or a
 *   content array when the message holds images (`image_url`, URL or data URL);
 * - `assistant` → `{role: "assistant", content, tool_calls: [{id, type:
 *   "function", function: {name, arguments: <JSON text>}}]}` (reasoning and
 *   provider-executed parts are not sent back);
 * - `tool` → one `{role: "tool", tool_call_id, content}` per tool result (the
 *   result's text output parts, else the result as text or JSON);
 * - tools → `tools: [{type: "function", function: {name, description,
 *   parameters: <JSON Schema>}}]`, `tool_choice` `auto` / `none` / `required`
 *   / `{type: "function", function: {name}}` (only sent with tools);
 * - `generateObject` → `response_format: {type: "json_schema", json_schema:
 *   {name, schema}}`.
 *
 * Response: `choices[0].message.content` → a text part, each `tool_calls[i]`
 * → a tool-call part (arguments parsed as JSON), `finish_reason` (`stop`,
 * `length`, `tool_calls`, `content_filter`) → the finish part's reason,
 * `usage.prompt_tokens` / `completion_tokens` (with cached and reasoning
 * details) → its usage. Streaming sends `stream: true` and `stream_options:
 * {include_usage: true}` and reads the `data:` lines up to `[DONE]`: text
 * deltas, tool-call argument fragments (by `index`) assembled into one
 * tool-call part each at the end, then the finish part with the usage chunk.
 *
 * Failures are `AiError`s (see `http.ts` for their descriptions); the runtime
 * maps them with `AgentRuntimeError.fromAiError("openai", e)`.
 *
 * @module
 */
import { Effect, Layer, Result, Schema, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response, Tool } from "effect/ai"
import { Base64 } from "effect/encoding"
import { HttpClient } from "effect/http"
import { makeDecoder } from "../../shared/decode.ts"
import {
  type HttpProvider,
  type HttpProviderConfig,
  makeHttpLanguageModel,
  malformed,
  noUsage,
  toolResultText
} from "./http.ts"

/** Default API root of the OpenAI provider (`SVC_OPENAI_BASE_URL` overrides it). */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"

const MODULE = "OpenAiLanguageModel"

// ---------------------------------------------------------------------------
// Wire shapes (only the fields read; others are ignored)
// ---------------------------------------------------------------------------

const Usage = Schema.Struct({
  prompt_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
  completion_tokens: Schema.optional(Schema.NullOr(Schema.Number)),
  prompt_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ cached_tokens: Schema.optional(Schema.NullOr(Schema.Number)) }))),
  completion_tokens_details: Schema.optional(
    Schema.NullOr(Schema.Struct({ reasoning_tokens: Schema.optional(Schema.NullOr(Schema.Number)) }))
  )
})

const ChatCompletion = Schema.Struct({
  id: Schema.optional(Schema.NullOr(Schema.String)),
  model: Schema.optional(Schema.NullOr(Schema.String)),
  choices: Schema.Array(Schema.Struct({
    message: Schema.Struct({
      content: Schema.optional(Schema.NullOr(Schema.String)),
      tool_calls: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({
        id: Schema.optional(Schema.NullOr(Schema.String)),
        function: Schema.Struct({ name: Schema.String, arguments: Schema.optional(Schema.NullOr(Schema.String)) })
      }))))
    }),
    finish_reason: Schema.optional(Schema.NullOr(Schema.String))
  })),
  usage: Schema.optional(Schema.NullOr(Usage))
})

const ChatCompletionChunk = Schema.Struct({
  id: Schema.optional(Schema.NullOr(Schema.String)),
  model: Schema.optional(Schema.NullOr(Schema.String)),
  choices: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({
    delta: Schema.optional(Schema.NullOr(Schema.Struct({
      content: Schema.optional(Schema.NullOr(Schema.String)),
      tool_calls: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({
        index: Schema.optional(Schema.NullOr(Schema.Number)),
        id: Schema.optional(Schema.NullOr(Schema.String)),
        function: Schema.optional(Schema.NullOr(Schema.Struct({
          name: Schema.optional(Schema.NullOr(Schema.String)),
          arguments: Schema.optional(Schema.NullOr(Schema.String))
        })))
      }))))
    }))),
    finish_reason: Schema.optional(Schema.NullOr(Schema.String))
  })))),
  usage: Schema.optional(Schema.NullOr(Usage))
})

const decodeCompletion = makeDecoder(ChatCompletion, { label: "body", echoInput: false })
const decodeChunk = makeDecoder(ChatCompletionChunk, { label: "chunk", echoInput: false })

/** `{error: {message}}` (OpenAI and most compatible servers), or `{error: "<text>"}` / `{message}`. */
const errorMessage = (body: unknown): string | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const error = (body as { error?: unknown }).error
  if (typeof error === "string") return error
  if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message
  }
  const message = (body as { message?: unknown }).message
  return typeof message === "string" ? message : undefined
}

// ---------------------------------------------------------------------------
// Request mapping
// ---------------------------------------------------------------------------

type ChatMessage = Record<string, unknown>

const imageUrl = (part: Prompt.FilePart): string => {
  if (part.data instanceof URL) return part.data.toString()
  const mediaType = part.mediaType === "image/*" ? "image/jpeg" : part.mediaType
  if (part.data instanceof Uint8Array) return `data:${mediaType};base64,${Base64.encode(part.data)}`
  return part.data.startsWith("data:") || /^https?:\/\//.test(part.data) ? part.data : `data:${mediaType};base64,${part.data}`
}

const invalidRequest = (method: string, description: string) =>
  AiError.make({ module: MODULE, method, reason: new AiError.InvalidRequestError({ description }) })

/** The chat `messages` of a prompt (see the module documentation). */
export const toChatMessages = (prompt: Prompt.Prompt, method: string): Result.Result<Array<ChatMessage>, AiError.AiError> => {
  const messages: Array<ChatMessage> = []
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        messages.push({ role: "system", content: message.content })
        break
      case "user": {
        const texts: Array<string> = []
        const parts: Array<Record<string, unknown>> = []
        for (const part of message.content) {
          if (part.type === "text") {
            texts.push(part.text)
            parts.push({ type: "text", text: part.text })
          } else if (part.mediaType.startsWith("image/")) {
            parts.push({ type: "image_url", image_url: { url: imageUrl(part) } })
          } else {
            return Result.fail(invalidRequest(method, `unsupported media type for a file: ${part.mediaType}`))
          }
        }
        messages.push({ role: "user", content: parts.length === texts.length ? texts.join("\n") : parts })
        break
      }
      case "assistant": {
        const texts: Array<string> = []
        const toolCalls: Array<Record<string, unknown>> = []
        for (const part of message.content) {
          if (part.type === "text") texts.push(part.text)
          else if (part.type === "tool-call" && !part.providerExecuted) {
            toolCalls.push({
              id: part.id,
              type: "function",
              function: { name: part.name, arguments: JSON.stringify(part.params ?? {}) }
            })
          }
        }
        if (texts.length === 0 && toolCalls.length === 0) break
        messages.push({
          role: "assistant",
          content: texts.length > 0 ? texts.join("") : null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : undefined)
        })
        break
      }
      case "tool":
        for (const part of message.content) {
          if (part.type !== "tool-result") continue
          messages.push({ role: "tool", tool_call_id: part.id, content: toolResultText(part) })
        }
        break
    }
  }
  return Result.succeed(messages)
}

const toolChoiceOf = (choice: LanguageModel.ToolChoice<string>): unknown => {
  if (typeof choice === "string") return choice
  if ("tool" in choice) return { type: "function", function: { name: choice.tool } }
  return choice.mode === "required" ? "required" : "auto"
}

/** The JSON body of a chat completions request for `options` (without `stream`). */
export const chatCompletionsRequest = (
  model: string,
  options: LanguageModel.ProviderOptions,
  method: string
): Result.Result<Record<string, unknown>, AiError.AiError> => {
  const messages = toChatMessages(options.prompt, method)
  if (Result.isFailure(messages)) return Result.fail(messages.failure)
  const body: Record<string, unknown> = { model, messages: messages.success }
  const tools = options.tools.filter((tool) => Tool.isUserDefined(tool) || Tool.isDynamic(tool))
  if (tools.length > 0) {
    try {
      body.tools = tools.map((tool) => ({
        type: "function",
        function: {
          name: tool.name,
          ...(Tool.getDescription(tool) !== undefined ? { description: Tool.getDescription(tool) } : undefined),
          parameters: Tool.getJsonSchema(tool)
        }
      }))
    } catch (error) {
      return Result.fail(
        AiError.make({
          module: MODULE,
          method,
          reason: new AiError.UnsupportedSchemaError({ description: error instanceof Error ? error.message : String(error) })
        })
      )
    }
    body.tool_choice = toolChoiceOf(options.toolChoice)
  }
  if (options.responseFormat.type === "json") {
    body.response_format = {
      type: "json_schema",
      json_schema: { name: options.responseFormat.objectName, schema: Tool.getJsonSchemaFromSchema(options.responseFormat.schema) }
    }
  }
  return Result.succeed(body)
}

// ---------------------------------------------------------------------------
// Response mapping
// ---------------------------------------------------------------------------

const FINISH_REASONS: Record<string, Response.FinishReason> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool-calls",
  function_call: "tool-calls",
  content_filter: "content-filter"
}

const finishReason = (reason: string | null | undefined, hasToolCalls: boolean): Response.FinishReason => {
  if (reason == null) return hasToolCalls ? "tool-calls" : "stop"
  return FINISH_REASONS[reason] ?? (hasToolCalls ? "tool-calls" : "unknown")
}

const usageOf = (usage: typeof Usage.Type | null | undefined): typeof Response.Usage.Encoded => {
  if (usage == null) return noUsage
  const input = usage.prompt_tokens ?? undefined
  const output = usage.completion_tokens ?? undefined
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0
  return {
    inputTokens: { uncached: input === undefined ? undefined : input - cached, total: input, cacheRead: cached, cacheWrite: undefined },
    outputTokens: { total: output, text: output === undefined ? undefined : output - reasoning, reasoning }
  }
}

const parseArguments = (method: string, name: string, text: string | null | undefined) =>
  Effect.try({
    try: () => Tool.unsafeSecureJsonParse(text === undefined || text === null || text.length === 0 ? "{}" : text),
    catch: (cause) =>
      AiError.make({
        module: MODULE,
        method,
        reason: new AiError.ToolParameterValidationError({
          toolName: name,
          description: `the model's arguments for ${name} are not JSON: ${cause instanceof Error ? cause.message : String(cause)}`
        })
      })
  })

const makeResponse = Effect.fnUntraced(function*(json: unknown) {
  const decoded = decodeCompletion(json)
  if (Result.isFailure(decoded)) return yield* malformed({ module: MODULE }, "generateText", decoded.failure)
  const completion = decoded.success
  const parts: Array<Response.PartEncoded> = [{
    type: "response-metadata",
    id: completion.id ?? undefined,
    modelId: completion.model ?? undefined
  }]
  const choice = completion.choices[0]
  let hasToolCalls = false
  if (choice !== undefined) {
    const content = choice.message.content
    if (content != null && content.length > 0) parts.push({ type: "text", text: content })
    for (const [index, call] of (choice.message.tool_calls ?? []).entries()) {
      const params = yield* parseArguments("generateText", call.function.name, call.function.arguments)
      hasToolCalls = true
      parts.push({ type: "tool-call", id: call.id ?? `${completion.id ?? "call"}_${index}`, name: call.function.name, params })
    }
  }
  parts.push({ type: "finish", reason: finishReason(choice?.finish_reason, hasToolCalls), usage: usageOf(completion.usage) })
  return parts
})

interface ActiveToolCall {
  readonly id: string
  name: string
  arguments: string
}

const streamResponse = (events: Stream.Stream<{ readonly data: unknown; readonly raw: string }, AiError.AiError>) => {
  let started = false
  let textId = "text_0"
  let textStarted = false
  let finish: string | null | undefined
  let usage: typeof Usage.Type | null | undefined
  let ended = false
  const toolCalls = new Map<number, ActiveToolCall>()
  const end = Effect.fnUntraced(function*() {
    ended = true
    const parts: Array<Response.StreamPartEncoded> = []
    if (textStarted) parts.push({ type: "text-end", id: textId })
    for (const call of toolCalls.values()) {
      const params = yield* parseArguments("streamText", call.name, call.arguments)
      parts.push({ type: "tool-params-end", id: call.id })
      parts.push({ type: "tool-call", id: call.id, name: call.name, params })
    }
    parts.push({ type: "finish", reason: finishReason(finish, toolCalls.size > 0), usage: usageOf(usage) })
    return parts
  })
  return events.pipe(
    Stream.takeUntil((event) => event.raw.trim() === "[DONE]"),
    Stream.mapEffect(Effect.fnUntraced(function*(event) {
      if (event.raw.trim() === "[DONE]") return yield* end()
      const decoded = decodeChunk(event.data)
      if (Result.isFailure(decoded)) return yield* malformed({ module: MODULE }, "streamText", decoded.failure)
      const chunk = decoded.success
      const parts: Array<Response.StreamPartEncoded> = []
      if (!started) {
        started = true
        if (chunk.id != null) textId = `${chunk.id}_text`
        parts.push({ type: "response-metadata", id: chunk.id ?? undefined, modelId: chunk.model ?? undefined })
      }
      if (chunk.usage != null) usage = chunk.usage
      const choice = chunk.choices?.[0]
      if (choice === undefined) return parts
      const delta = choice.delta
      if (delta?.content != null && delta.content.length > 0) {
        if (!textStarted) {
          textStarted = true
          parts.push({ type: "text-start", id: textId })
        }
        parts.push({ type: "text-delta", id: textId, delta: delta.content })
      }
      for (const [position, fragment] of (delta?.tool_calls ?? []).entries()) {
        const index = fragment.index ?? position
        const argumentsDelta = fragment.function?.arguments ?? ""
        let call = toolCalls.get(index)
        if (call === undefined) {
          call = {
            id: fragment.id ?? `${chunk.id ?? "call"}_${index}`,
            name: fragment.function?.name ?? "unknown_tool",
            arguments: ""
          }
          toolCalls.set(index, call)
          parts.push({ type: "tool-params-start", id: call.id, name: call.name })
        } else if (fragment.function?.name != null) {
          call.name = fragment.function.name
        }
        call.arguments += argumentsDelta
        if (argumentsDelta.length > 0) parts.push({ type: "tool-params-delta", id: call.id, delta: argumentsDelta })
      }
      if (choice.finish_reason != null) finish = choice.finish_reason
      return parts
    })),
    // A server that closes the stream without `[DONE]` still gets its finish part.
    Stream.concat(Stream.suspend(() => ended ? Stream.empty : Stream.fromEffect(end()))),
    Stream.flattenIterable
  )
}

// ---------------------------------------------------------------------------
// The LanguageModel
// ---------------------------------------------------------------------------

/** The OpenAI chat completions wire (the shared machinery is `http.ts`'s). */
const provider: HttpProvider<HttpProviderConfig> = {
  module: MODULE,
  defaultBaseUrl: OPENAI_DEFAULT_BASE_URL,
  path: "chat/completions",
  headers: (apiKey) => ({ authorization: `Bearer ${apiKey}`, accept: "application/json" }),
  errorMessage,
  request: (config, options, method) => chatCompletionsRequest(config.model, options, method),
  streamBody: (body) => ({ ...body, stream: true, stream_options: { include_usage: true } }),
  response: () => makeResponse,
  stream: streamResponse
}

/**
 * An OpenAI-compatible `LanguageModel` for `config` (see the module
 * documentation for the mapping). Needs an `HttpClient` (captured here; the
 * model's calls need nothing else).
 */
export const make = (config: HttpProviderConfig) => makeHttpLanguageModel(provider, config)

/** The `LanguageModel` layer of {@link make}. */
export const layer = (config: HttpProviderConfig): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(config))
