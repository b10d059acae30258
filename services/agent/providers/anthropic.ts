/**
 * The Anthropic messages provider (issue 25 §1): Effect's `LanguageModel`
 * over `HttpClient`, `POST <baseUrl>/messages` (default base
 * `https://api.anthropic.com/v1`), headers `x-api-key: <key>` and
 * `anthropic-version: 2023-06-01`, so any server speaking that shape works.
 *
 * The request and response mapping follows the published
 * `@effect/ai-anthropic` 4.0 beta, which cannot be used here: it imports
 * `effect/unstable/*` paths effect 4.1 no longer has. Swap this module for the
 * official package when a release matches effect 4.1.
 *
 * Request (`Prompt` → messages):
 * - every `system` message → the top-level `system` field (joined by a blank line);
 * - `user` → a `user` message of `text` / `image` blocks;
 * - `assistant` → an `assistant` message of `text` and `tool_use` blocks
 *   (`{id, name, input}`);
 * - `tool` → `tool_result` blocks (`{tool_use_id, content, is_error}`) in a
 *   `user` message; consecutive messages of one side merge, as the API
 *   wants strictly alternating roles;
 * - tools → `tools: [{name, description, input_schema}]`, `tool_choice`
 *   `{type: "auto" | "any" | "none" | "tool", name?}` (only sent with tools);
 * - `max_tokens` (required by the API): `config.maxTokens`, default 4096.
 *
 * Response: `text` blocks → text parts, `tool_use` blocks → tool-call parts,
 * `stop_reason` (`end_turn`, `stop_sequence` → stop; `max_tokens` → length;
 * `tool_use` → tool-calls; `pause_turn` → pause; `refusal` → content-filter),
 * `usage` (input with cache reads and writes, output) → the finish part.
 * Streaming (`stream: true`) reads the events `message_start` (id, model,
 * input usage), `content_block_start` / `content_block_delta` (`text_delta`,
 * `input_json_delta` fragments) / `content_block_stop` (a tool_use block
 * becomes one tool-call part there), `message_delta` (stop reason, output
 * usage), `message_stop`; an `error` event fails the stream with its message.
 *
 * Failures are `AiError`s (see `http.ts` for their descriptions); the runtime
 * maps them with `AgentRuntimeError.fromAiError("anthropic", e)`.
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
  type SseMessage,
  toolResultText
} from "./http.ts"

/** Default API root of the Anthropic provider (`SVC_ANTHROPIC_BASE_URL` overrides it). */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com/v1"

/** The `anthropic-version` header every request sends. */
export const ANTHROPIC_VERSION = "2023-06-01"

/** `max_tokens` when the configuration names none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096

/** {@link HttpProviderConfig} plus the answer's token cap (`max_tokens`, default 4096). */
export interface AnthropicConfig extends HttpProviderConfig {
  readonly maxTokens?: number | undefined
}

const MODULE = "AnthropicLanguageModel"

// ---------------------------------------------------------------------------
// Wire shapes (only the fields read)
// ---------------------------------------------------------------------------

const OptionalCount = Schema.optional(Schema.NullOr(Schema.Number))

const Usage = Schema.Struct({
  input_tokens: OptionalCount,
  output_tokens: OptionalCount,
  cache_creation_input_tokens: OptionalCount,
  cache_read_input_tokens: OptionalCount
})

const ContentBlock = Schema.Struct({
  type: Schema.String,
  text: Schema.optional(Schema.String),
  id: Schema.optional(Schema.String),
  name: Schema.optional(Schema.String),
  input: Schema.optional(Schema.Unknown)
})

const MessageResponse = Schema.Struct({
  id: Schema.optional(Schema.NullOr(Schema.String)),
  model: Schema.optional(Schema.NullOr(Schema.String)),
  content: Schema.Array(ContentBlock),
  stop_reason: Schema.optional(Schema.NullOr(Schema.String)),
  usage: Schema.optional(Schema.NullOr(Usage))
})

const StreamEvent = Schema.Struct({
  type: Schema.String,
  index: Schema.optional(Schema.Number),
  message: Schema.optional(Schema.Struct({
    id: Schema.optional(Schema.NullOr(Schema.String)),
    model: Schema.optional(Schema.NullOr(Schema.String)),
    usage: Schema.optional(Schema.NullOr(Usage))
  })),
  content_block: Schema.optional(ContentBlock),
  delta: Schema.optional(Schema.Struct({
    type: Schema.optional(Schema.String),
    text: Schema.optional(Schema.String),
    partial_json: Schema.optional(Schema.String),
    stop_reason: Schema.optional(Schema.NullOr(Schema.String))
  })),
  usage: Schema.optional(Schema.NullOr(Usage)),
  error: Schema.optional(Schema.Struct({ type: Schema.optional(Schema.String), message: Schema.optional(Schema.String) }))
})

const decodeMessage = makeDecoder(MessageResponse, { label: "body", echoInput: false })
const decodeEvent = makeDecoder(StreamEvent, { label: "event", echoInput: false })

/** `{type: "error", error: {type, message}}`. */
const errorMessage = (body: unknown): string | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const error = (body as { error?: unknown }).error
  if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message
  }
  const message = (body as { message?: unknown }).message
  return typeof message === "string" ? message : undefined
}

// ---------------------------------------------------------------------------
// Request mapping
// ---------------------------------------------------------------------------

type Block = Record<string, unknown>
interface AnthropicMessage {
  readonly role: "user" | "assistant"
  readonly content: Array<Block>
}

const imageBlock = (part: Prompt.FilePart): Block => {
  const mediaType = part.mediaType === "image/*" ? "image/jpeg" : part.mediaType
  if (part.data instanceof URL) return { type: "image", source: { type: "url", url: part.data.toString() } }
  if (part.data instanceof Uint8Array) {
    return { type: "image", source: { type: "base64", media_type: mediaType, data: Base64.encode(part.data) } }
  }
  if (/^https?:\/\//.test(part.data)) return { type: "image", source: { type: "url", url: part.data } }
  const data = part.data.startsWith("data:") ? part.data.slice(part.data.indexOf(",") + 1) : part.data
  return { type: "image", source: { type: "base64", media_type: mediaType, data } }
}

/** The `system` text and `messages` of a prompt (see the module documentation). */
export const toAnthropicMessages = (
  prompt: Prompt.Prompt,
  method: string
): Result.Result<{ readonly system: string | undefined; readonly messages: Array<AnthropicMessage> }, AiError.AiError> => {
  const system: Array<string> = []
  const messages: Array<AnthropicMessage> = []
  const push = (role: "user" | "assistant", blocks: Array<Block>) => {
    if (blocks.length === 0) return
    const last = messages[messages.length - 1]
    if (last !== undefined && last.role === role) last.content.push(...blocks)
    else messages.push({ role, content: blocks })
  }
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        system.push(message.content)
        break
      case "user": {
        const blocks: Array<Block> = []
        for (const part of message.content) {
          if (part.type === "text") blocks.push({ type: "text", text: part.text })
          else if (part.mediaType.startsWith("image/")) blocks.push(imageBlock(part))
          else {
            return Result.fail(AiError.make({
              module: MODULE,
              method,
              reason: new AiError.InvalidRequestError({ description: `unsupported media type for a file: ${part.mediaType}` })
            }))
          }
        }
        push("user", blocks)
        break
      }
      case "assistant": {
        const blocks: Array<Block> = []
        for (const part of message.content) {
          if (part.type === "text" && part.text.length > 0) blocks.push({ type: "text", text: part.text })
          else if (part.type === "tool-call" && !part.providerExecuted) {
            blocks.push({ type: "tool_use", id: part.id, name: part.name, input: part.params ?? {} })
          }
        }
        push("assistant", blocks)
        break
      }
      case "tool": {
        const blocks: Array<Block> = []
        for (const part of message.content) {
          if (part.type !== "tool-result") continue
          blocks.push({
            type: "tool_result",
            tool_use_id: part.id,
            content: toolResultText(part),
            ...(part.isFailure ? { is_error: true } : undefined)
          })
        }
        push("user", blocks)
        break
      }
    }
  }
  return Result.succeed({ system: system.length > 0 ? system.join("\n\n") : undefined, messages })
}

const toolChoiceOf = (choice: LanguageModel.ToolChoice<string>): unknown => {
  if (choice === "auto") return { type: "auto" }
  if (choice === "required") return { type: "any" }
  if (choice === "none") return { type: "none" }
  if ("tool" in choice) return { type: "tool", name: choice.tool }
  return { type: choice.mode === "required" ? "any" : "auto" }
}

/** The JSON body of a messages request for `options` (without `stream`). */
export const messagesRequest = (
  config: Pick<AnthropicConfig, "model" | "maxTokens">,
  options: LanguageModel.ProviderOptions,
  method: string
): Result.Result<Record<string, unknown>, AiError.AiError> => {
  const mapped = toAnthropicMessages(options.prompt, method)
  if (Result.isFailure(mapped)) return Result.fail(mapped.failure)
  const body: Record<string, unknown> = {
    model: config.model,
    max_tokens: config.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    ...(mapped.success.system !== undefined ? { system: mapped.success.system } : undefined),
    messages: mapped.success.messages
  }
  const tools = options.tools.filter((tool) => Tool.isUserDefined(tool) || Tool.isDynamic(tool))
  const objectTool = options.responseFormat.type === "json" ? options.responseFormat : undefined
  if (tools.length > 0 || objectTool !== undefined) {
    try {
      body.tools = [
        ...tools.map((tool) => ({
          name: tool.name,
          ...(Tool.getDescription(tool) !== undefined ? { description: Tool.getDescription(tool) } : undefined),
          input_schema: Tool.getJsonSchema(tool)
        })),
        // Structured output the way the Anthropic package does it without the
        // beta header: one tool whose input is the object, which the model must call.
        ...(objectTool !== undefined
          ? [{ name: objectTool.objectName, input_schema: Tool.getJsonSchemaFromSchema(objectTool.schema) }]
          : [])
      ]
    } catch (error) {
      return Result.fail(AiError.make({
        module: MODULE,
        method,
        reason: new AiError.UnsupportedSchemaError({ description: error instanceof Error ? error.message : String(error) })
      }))
    }
    body.tool_choice = objectTool !== undefined ? { type: "tool", name: objectTool.objectName } : toolChoiceOf(options.toolChoice)
  }
  return Result.succeed(body)
}

// ---------------------------------------------------------------------------
// Response mapping
// ---------------------------------------------------------------------------

const STOP_REASONS: Record<string, Response.FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool-calls",
  pause_turn: "pause",
  refusal: "content-filter"
}

const finishReason = (reason: string | null | undefined, hasToolCalls: boolean): Response.FinishReason =>
  reason == null ? (hasToolCalls ? "tool-calls" : "stop") : STOP_REASONS[reason] ?? "unknown"

const usageOf = (input: typeof Usage.Type | null | undefined, output: typeof Usage.Type | null | undefined): typeof Response.Usage.Encoded => {
  if (input == null && output == null) return noUsage
  const uncached = input?.input_tokens ?? undefined
  const cacheWrite = input?.cache_creation_input_tokens ?? undefined
  const cacheRead = input?.cache_read_input_tokens ?? undefined
  const outputTokens = output?.output_tokens ?? input?.output_tokens ?? undefined
  return {
    inputTokens: {
      uncached,
      total: uncached === undefined ? undefined : uncached + (cacheWrite ?? 0) + (cacheRead ?? 0),
      cacheRead,
      cacheWrite
    },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined }
  }
}

/**
 * The object of a `generateObject` call comes back as the input of the
 * object tool: the LanguageModel reads structured output from text, so it is
 * answered as a text part holding that JSON.
 */
const makeResponse = (objectName: string | undefined) =>
  Effect.fnUntraced(function*(json: unknown) {
    const decoded = decodeMessage(json)
    if (Result.isFailure(decoded)) return yield* malformed({ module: MODULE }, "generateText", decoded.failure)
    const message = decoded.success
    const parts: Array<Response.PartEncoded> = [{ type: "response-metadata", id: message.id ?? undefined, modelId: message.model ?? undefined }]
    let hasToolCalls = false
    // With the object tool called, its input is the whole text (a preamble would break the JSON).
    const objectCalled = objectName !== undefined && message.content.some((block) => block.type === "tool_use" && block.name === objectName)
    for (const block of message.content) {
      if (block.type === "text" && block.text !== undefined && block.text.length > 0) {
        if (objectCalled) continue
        parts.push({ type: "text", text: block.text })
      } else if (block.type === "tool_use" && block.id !== undefined && block.name !== undefined) {
        if (block.name === objectName) {
          parts.push({ type: "text", text: JSON.stringify(block.input ?? {}) })
          continue
        }
        hasToolCalls = true
        parts.push({ type: "tool-call", id: block.id, name: block.name, params: block.input ?? {} })
      }
    }
    parts.push({
      type: "finish",
      reason: objectName !== undefined && message.stop_reason === "tool_use" ? "stop" : finishReason(message.stop_reason, hasToolCalls),
      usage: usageOf(message.usage, message.usage)
    })
    return parts
  })

interface OpenBlock {
  readonly kind: "text" | "tool"
  readonly id: string
  readonly name: string
  json: string
}

const streamFailure = (message: string | undefined) =>
  AiError.make({
    module: MODULE,
    method: "streamText",
    reason: new AiError.InternalProviderError({ description: message ?? "the stream reported an error" })
  })

const streamResponse = (events: Stream.Stream<SseMessage, AiError.AiError>) => {
  let messageId = "msg"
  let inputUsage: typeof Usage.Type | null | undefined
  let outputUsage: typeof Usage.Type | null | undefined
  let stop: string | null | undefined
  let hasToolCalls = false
  let finished = false
  const blocks = new Map<number, OpenBlock>()
  const finish = (): Array<Response.StreamPartEncoded> => {
    finished = true
    return [{ type: "finish", reason: finishReason(stop, hasToolCalls), usage: usageOf(inputUsage, outputUsage) }]
  }
  return events.pipe(
    Stream.mapEffect(Effect.fnUntraced(function*(message) {
      if (message.data === undefined) return yield* malformed({ module: MODULE }, "streamText", `the data of event ${message.event} is not JSON`)
      const decoded = decodeEvent(message.data)
      if (Result.isFailure(decoded)) return yield* malformed({ module: MODULE }, "streamText", decoded.failure)
      const event = decoded.success
      const parts: Array<Response.StreamPartEncoded> = []
      switch (event.type) {
        case "message_start":
          messageId = event.message?.id ?? messageId
          inputUsage = event.message?.usage
          parts.push({ type: "response-metadata", id: event.message?.id ?? undefined, modelId: event.message?.model ?? undefined })
          break
        case "content_block_start": {
          const index = event.index ?? blocks.size
          const block = event.content_block
          if (block?.type === "text") {
            const id = `${messageId}_${index}`
            blocks.set(index, { kind: "text", id, name: "", json: "" })
            parts.push({ type: "text-start", id })
            if (block.text !== undefined && block.text.length > 0) parts.push({ type: "text-delta", id, delta: block.text })
          } else if (block?.type === "tool_use") {
            const id = block.id ?? `${messageId}_${index}`
            const name = block.name ?? "unknown_tool"
            blocks.set(index, { kind: "tool", id, name, json: "" })
            parts.push({ type: "tool-params-start", id, name })
          }
          break
        }
        case "content_block_delta": {
          const block = blocks.get(event.index ?? 0)
          if (block === undefined) break
          if (block.kind === "text" && event.delta?.text !== undefined) {
            parts.push({ type: "text-delta", id: block.id, delta: event.delta.text })
          } else if (block.kind === "tool" && event.delta?.partial_json !== undefined) {
            block.json += event.delta.partial_json
            if (event.delta.partial_json.length > 0) parts.push({ type: "tool-params-delta", id: block.id, delta: event.delta.partial_json })
          }
          break
        }
        case "content_block_stop": {
          const index = event.index ?? 0
          const block = blocks.get(index)
          if (block === undefined) break
          blocks.delete(index)
          if (block.kind === "text") {
            parts.push({ type: "text-end", id: block.id })
            break
          }
          const params = yield* Effect.try({
            try: () => Tool.unsafeSecureJsonParse(block.json.length > 0 ? block.json : "{}"),
            catch: (cause) =>
              AiError.make({
                module: MODULE,
                method: "streamText",
                reason: new AiError.ToolParameterValidationError({
                  toolName: block.name,
                  description: `the model's input for ${block.name} is not JSON: ${cause instanceof Error ? cause.message : String(cause)}`
                })
              })
          })
          hasToolCalls = true
          parts.push({ type: "tool-params-end", id: block.id })
          parts.push({ type: "tool-call", id: block.id, name: block.name, params })
          break
        }
        case "message_delta":
          if (event.delta?.stop_reason !== undefined) stop = event.delta.stop_reason
          if (event.usage != null) outputUsage = event.usage
          break
        case "message_stop":
          parts.push(...finish())
          break
        case "error":
          return yield* streamFailure(event.error?.message)
      }
      return parts
    })),
    // A server that closes the stream without `message_stop` still gets its finish part.
    Stream.concat(Stream.suspend(() => finished ? Stream.empty : Stream.make(finish()))),
    Stream.flattenIterable
  )
}

// ---------------------------------------------------------------------------
// The LanguageModel
// ---------------------------------------------------------------------------

/** The Anthropic messages wire (the shared machinery is `http.ts`'s). */
const provider: HttpProvider<AnthropicConfig> = {
  module: MODULE,
  defaultBaseUrl: ANTHROPIC_DEFAULT_BASE_URL,
  path: "messages",
  headers: (apiKey) => ({ "x-api-key": apiKey, "anthropic-version": ANTHROPIC_VERSION, accept: "application/json" }),
  errorMessage,
  request: messagesRequest,
  streamBody: (body) => ({ ...body, stream: true }),
  response: (options) => makeResponse(options.responseFormat.type === "json" ? options.responseFormat.objectName : undefined),
  stream: streamResponse
}

/**
 * An Anthropic messages `LanguageModel` for `config` (see the module
 * documentation for the mapping). Needs an `HttpClient` (captured here).
 */
export const make = (config: AnthropicConfig) => makeHttpLanguageModel(provider, config)

/** The `LanguageModel` layer of {@link make}. */
export const layer = (config: AnthropicConfig): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(config))
