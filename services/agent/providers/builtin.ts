/**
 * The two built-in providers (issue 25 §1): `LanguageModel`s that need no
 * network and no credential, for tests, demos and offline use.
 *
 * - `builtin/echo` answers with the text of the prompt's last user message.
 * - `builtin/scripted` answers from the script file
 *   `$SVC_HOME/agents/<agent_id>/script.yml` (docs/agent.md "Providers"):
 *
 *   ```yaml
 *   turns:
 *     - reply: "Hello! Ask me about the weather."
 *     - tool_calls:
 *         - name: http_fetch
 *           arguments: { url: "https://example.com/weather" }
 *       reply: "Fetched the forecast: sunny."
 *   ```
 *
 *   Each turn is `{reply}` or `{tool_calls: [{name, arguments?}], reply}`,
 *   consumed in order per session. The provider is stateless (so it survives
 *   a restart and needs no session store): the turn index is the number of
 *   user messages in the prompt minus one; when the prompt's last message
 *   carries the tool results of that turn's calls (ids `call_<turn>_<i>`), it
 *   answers the turn's `reply`, else a turn with `tool_calls` answers those
 *   calls, else its `reply`. Past the last turn it answers the last turn's
 *   `reply`. The file is read on every call, so an edited script applies to
 *   the next turn.
 *
 * Both stream too: text in word-sized deltas, tool calls as one params delta
 * each. Usage is an estimate (a token per 4 characters of text, rounded up),
 * so usage accounting has numbers to sum.
 *
 * Failures: a missing or invalid script fails the call with an `AiError`
 * whose description names the file and, for an invalid one, the line
 * (`invalid script /home/x/agents/a/script.yml at line 4: turns[1].reply:
 * missing required field`); `AgentRuntimeError.fromAiError("builtin/scripted",
 * e)` turns it into the gateway's 502. {@link loadScript} gives the same
 * failure as an `AgentRuntimeError` directly.
 *
 * @module
 */
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer, Result, Schema, SchemaIssue, SchemaParser, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response } from "effect/ai"
import { agentIdProblem } from "../../shared/agent.ts"
import { formatIssue } from "../../shared/decode.ts"
import { keyOf, lineAt, loadYaml } from "../../shared/yaml.ts"
import { AgentRuntimeError } from "./errors.ts"

// ---------------------------------------------------------------------------
// The script
// ---------------------------------------------------------------------------

/** A tool name as the providers accept it: letters, digits, `_` and `-` (1–64). */
const ToolName = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9_-]{1,64}$/, { expected: "a tool name (1 to 64 letters, digits, _ or -)" })
)

/** One scripted tool call: the tool's name and its arguments (an object, default `{}`). */
export const ScriptToolCall = Schema.Struct({
  name: ToolName,
  arguments: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
})

/** One scripted turn: a reply, after the tool calls when it has some. */
export const ScriptTurn = Schema.Struct({
  tool_calls: Schema.optional(Schema.NonEmptyArray(ScriptToolCall)),
  reply: Schema.String
})

/** A `script.yml`: at least one turn. */
export const Script = Schema.Struct({ turns: Schema.NonEmptyArray(ScriptTurn) })
export type Script = typeof Script.Type

/** Largest script read, in bytes (1 MiB). */
export const MAX_SCRIPT_BYTES = 1_048_576

/** `<home>/agents/<agentId>/script.yml`, the script of `builtin/scripted` for an agent. */
export const scriptPath = (home: string, agentId: string): string => join(home, "agents", agentId, "script.yml")

const decodeScript = SchemaParser.decodeUnknownResult(Script, { errors: "first", onExcessProperty: "error" })
const issuePath = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Parses a script's text; a failure is one message naming `file` and, when
 * known, the 1-based line (`invalid script <file> at line <n>: <what>`).
 */
export const parseScript = (file: string, text: string): Result.Result<Script, string> => {
  const loaded = loadYaml(text)
  if (Result.isFailure(loaded)) {
    return Result.fail(`invalid script ${file} at line ${loaded.failure.line ?? 1}: invalid YAML: expected ${loaded.failure.expected}`)
  }
  const { content, root, counter } = loaded.success
  const decoded = decodeScript(content)
  if (Result.isSuccess(decoded)) return Result.succeed(decoded.success)
  const path = (issuePath(decoded.failure).issues[0]?.path ?? []).map(keyOf)
  const line = lineAt(root, path, counter) ?? 1
  return Result.fail(`invalid script ${file} at line ${line}: ${formatIssue(decoded.failure, "script")}`)
}

const readScript = (file: string): Effect.Effect<Script, string> =>
  Effect.tryPromise({
    try: () => readFile(file),
    catch: (error) =>
      (error as NodeJS.ErrnoException).code === "ENOENT"
        ? `no script: ${file} does not exist`
        : `cannot read script ${file}: ${(error as NodeJS.ErrnoException).code ?? "read failed"}`
  }).pipe(
    Effect.flatMap((bytes) =>
      bytes.byteLength > MAX_SCRIPT_BYTES
        ? Effect.fail(`invalid script ${file}: larger than ${MAX_SCRIPT_BYTES} bytes`)
        : Effect.fromResult(parseScript(file, bytes.toString("utf8")))
    )
  )

/** Reads and validates a script file; a failure is the `AgentRuntimeError` the runtime answers (502). */
export const loadScript = (file: string): Effect.Effect<Script, AgentRuntimeError> =>
  readScript(file).pipe(Effect.mapError((message) => new AgentRuntimeError({ message: `builtin/scripted: ${message}` })))

// ---------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------

type Answer =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "ToolCalls"; readonly calls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly params: unknown }> }

const textOf = (message: Prompt.Message): string =>
  typeof message.content === "string"
    ? message.content
    : message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n")

const estimateTokens = (text: string): number => Math.ceil(text.length / 4)

const usage = (prompt: Prompt.Prompt, output: string): typeof Response.Usage.Encoded => {
  const input = prompt.content.reduce((sum, message) => sum + estimateTokens(textOf(message)), 0)
  const out = estimateTokens(output)
  return {
    inputTokens: { uncached: input, total: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: out, text: out, reasoning: 0 }
  }
}

const answerText = (answer: Answer): string =>
  answer._tag === "Text" ? answer.text : answer.calls.map((call) => `${call.name}${JSON.stringify(call.params)}`).join("")

const partsOf = (modelId: string, prompt: Prompt.Prompt, answer: Answer): Array<Response.PartEncoded> => [
  { type: "response-metadata", modelId },
  ...(answer._tag === "Text"
    ? [{ type: "text", text: answer.text } as const]
    : answer.calls.map((call) => ({ type: "tool-call", id: call.id, name: call.name, params: call.params } as const))),
  { type: "finish", reason: answer._tag === "Text" ? "stop" : "tool-calls", usage: usage(prompt, answerText(answer)) }
]

const streamPartsOf = (modelId: string, prompt: Prompt.Prompt, answer: Answer): Array<Response.StreamPartEncoded> => {
  const parts: Array<Response.StreamPartEncoded> = [{ type: "response-metadata", modelId }]
  if (answer._tag === "Text") {
    parts.push({ type: "text-start", id: "text_0" })
    for (const delta of answer.text.match(/\S+\s*|\s+/g) ?? []) parts.push({ type: "text-delta", id: "text_0", delta })
    parts.push({ type: "text-end", id: "text_0" })
  } else {
    for (const call of answer.calls) {
      parts.push({ type: "tool-params-start", id: call.id, name: call.name })
      parts.push({ type: "tool-params-delta", id: call.id, delta: JSON.stringify(call.params) })
      parts.push({ type: "tool-params-end", id: call.id })
      parts.push({ type: "tool-call", id: call.id, name: call.name, params: call.params })
    }
  }
  parts.push({ type: "finish", reason: answer._tag === "Text" ? "stop" : "tool-calls", usage: usage(prompt, answerText(answer)) })
  return parts
}

/** A `LanguageModel` answering each prompt with `answer(prompt)`, whole or streamed. */
const makeAnswering = (
  modelId: string,
  answer: (prompt: Prompt.Prompt) => Effect.Effect<Answer, AiError.AiError>
): Effect.Effect<LanguageModel.LanguageModel> =>
  LanguageModel.make({
    generateText: (options) => Effect.map(answer(options.prompt), (result) => partsOf(modelId, options.prompt, result)),
    streamText: (options) =>
      Stream.fromEffect(answer(options.prompt)).pipe(
        Stream.flatMap((result) => Stream.fromIterable(streamPartsOf(modelId, options.prompt, result)))
      )
  })

/** The echo answer: the text of the prompt's last user message (empty when there is none). */
export const echoAnswer = (prompt: Prompt.Prompt): string => {
  for (let index = prompt.content.length - 1; index >= 0; index--) {
    const message = prompt.content[index]!
    if (message.role === "user") return textOf(message)
  }
  return ""
}

/** The scripted answer to `prompt` (see the module documentation). */
export const scriptedAnswer = (script: Script, prompt: Prompt.Prompt): Answer => {
  const users = prompt.content.filter((message) => message.role === "user").length
  const turnIndex = Math.max(0, users - 1)
  if (turnIndex >= script.turns.length) return { _tag: "Text", text: script.turns[script.turns.length - 1]!.reply }
  const turn = script.turns[turnIndex]!
  const last = prompt.content[prompt.content.length - 1]
  const prefix = `call_${turnIndex}_`
  const answered = last?.role === "tool" &&
    last.content.some((part) => part.type === "tool-result" && part.id.startsWith(prefix))
  if (answered || turn.tool_calls === undefined) return { _tag: "Text", text: turn.reply }
  return {
    _tag: "ToolCalls",
    calls: turn.tool_calls.map((call, index) => ({ id: `${prefix}${index}`, name: call.name, params: call.arguments ?? {} }))
  }
}

// ---------------------------------------------------------------------------
// Layers
// ---------------------------------------------------------------------------

/** The `builtin/echo` model. */
export const makeEcho: Effect.Effect<LanguageModel.LanguageModel> = makeAnswering(
  "builtin/echo",
  (prompt) => Effect.succeed({ _tag: "Text", text: echoAnswer(prompt) })
)

/** The `builtin/echo` `LanguageModel` layer. */
export const echoLayer: Layer.Layer<LanguageModel.LanguageModel> = Layer.effect(LanguageModel.LanguageModel, makeEcho)

/** Where `builtin/scripted` finds its script: a file, or an agent under a home directory. */
export type ScriptLocation = { readonly file: string } | { readonly home: string; readonly agentId: string }

const scriptFailure = (description: string) =>
  AiError.make({ module: "ScriptedLanguageModel", method: "generateText", reason: new AiError.InvalidRequestError({ description }) })

/**
 * The `builtin/scripted` model reading `location`'s script on every call.
 * Fails (an `AgentRuntimeError`) only for an agent id that is not one.
 */
export const makeScripted = (location: ScriptLocation): Effect.Effect<LanguageModel.LanguageModel, AgentRuntimeError> => {
  if ("agentId" in location) {
    const problem = agentIdProblem(location.agentId)
    if (problem !== undefined) return Effect.fail(new AgentRuntimeError({ message: `builtin/scripted: agent id: ${problem}` }))
  }
  const file = "file" in location ? location.file : scriptPath(location.home, location.agentId)
  return makeAnswering("builtin/scripted", (prompt) =>
    readScript(file).pipe(
      Effect.mapError(scriptFailure),
      Effect.map((script) => scriptedAnswer(script, prompt))
    ))
}

/** The `builtin/scripted` `LanguageModel` layer of {@link makeScripted}. */
export const scriptedLayer = (location: ScriptLocation): Layer.Layer<LanguageModel.LanguageModel, AgentRuntimeError> =>
  Layer.effect(LanguageModel.LanguageModel, makeScripted(location))
