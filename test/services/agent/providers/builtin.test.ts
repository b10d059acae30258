/**
 * The built-in providers: `builtin/echo` (whole and streamed), and
 * `builtin/scripted` from `$SVC_HOME/agents/<agent_id>/script.yml` — a
 * multi-step turn with a tool run through a Toolkit, stateless turn
 * selection from the prompt, the exhausted script, streaming, and invalid
 * scripts (file and line in the message).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { LanguageModel, Prompt } from "effect/ai"
import { echoLayer, loadScript, scriptedLayer, scriptPath } from "../../../../services/agent/providers/builtin.ts"
import { AgentRuntimeError } from "../../../../services/agent/providers/errors.ts"
import { weatherHandlers, WeatherToolkit } from "./support.ts"

const home = mkdtempSync(join(tmpdir(), "svc-scripted-"))
afterAll(() => rmSync(home, { recursive: true, force: true }))

/** Writes `text` as the script of `agentId`; answers its path. */
const writeScript = (agentId: string, text: string): string => {
  const file = scriptPath(home, agentId)
  mkdirSync(join(home, "agents", agentId), { recursive: true })
  writeFileSync(file, text)
  return file
}

const WEATHER_SCRIPT = `turns:
  - reply: "Hello! Ask me about the weather."
  - tool_calls:
      - name: get_weather
        arguments: { city: Paris }
    reply: "Paris: sunny."
  - reply: "Anything else?"
`

const scripted = (agentId: string) => scriptedLayer({ home, agentId })

describe("builtin/echo", () => {
  it.effect("answers with the last user message's text, whole and streamed", () =>
    Effect.gen(function*() {
      const prompt = Prompt.fromMessages([
        Prompt.makeMessage("system", { content: "ignored" }),
        Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: "first" })] }),
        Prompt.makeMessage("assistant", { content: [Prompt.makePart("text", { text: "first" })] }),
        Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: "say this back" })] })
      ])
      const response = yield* LanguageModel.generateText({ prompt })
      expect(response.text).toBe("say this back")
      expect(response.finishReason).toBe("stop")
      expect(response.usage.outputTokens.total).toBe(4)
      const parts = yield* LanguageModel.streamText({ prompt }).pipe(Stream.runCollect)
      const deltas = parts.flatMap((part) => part.type === "text-delta" ? [part.delta] : [])
      expect(deltas).toEqual(["say ", "this ", "back"])
    }).pipe(Effect.provide(echoLayer)))
})

describe("builtin/scripted", () => {
  it.effect("a multi-step conversation with a tool: calls, then the reply after the results, then the next turn", () => {
    writeScript("weather", WEATHER_SCRIPT)
    const handlers = weatherHandlers()
    return Effect.gen(function*() {
      // Turn 0: a plain reply.
      let prompt = Prompt.make("hi")
      const first = yield* LanguageModel.generateText({ prompt, toolkit: WeatherToolkit })
      expect(first.text).toBe("Hello! Ask me about the weather.")
      prompt = Prompt.concat(prompt, Prompt.fromResponseParts(first.content))

      // Turn 1: the tool call (deterministic id), executed by the Toolkit.
      prompt = Prompt.concat(prompt, Prompt.make("weather in Paris?"))
      const second = yield* LanguageModel.generateText({ prompt, toolkit: WeatherToolkit })
      expect(second.finishReason).toBe("tool-calls")
      expect(second.toolCalls.map((call) => [call.id, call.name, call.params])).toEqual([["call_1_0", "get_weather", { city: "Paris" }]])
      expect(handlers.calls).toEqual(["Paris"])
      prompt = Prompt.concat(prompt, Prompt.fromResponseParts(second.content))

      // Same turn, the results are in: the turn's reply.
      const third = yield* LanguageModel.generateText({ prompt, toolkit: WeatherToolkit })
      expect(third.text).toBe("Paris: sunny.")
      expect(third.toolCalls).toEqual([])
      prompt = Prompt.concat(prompt, Prompt.fromResponseParts(third.content))

      // Turn 2, then exhausted: the last reply again.
      prompt = Prompt.concat(prompt, Prompt.make("thanks"))
      expect((yield* LanguageModel.generateText({ prompt })).text).toBe("Anything else?")
      prompt = Prompt.concat(prompt, Prompt.make("bye"))
      expect((yield* LanguageModel.generateText({ prompt })).text).toBe("Anything else?")
      expect(handlers.calls).toEqual(["Paris"])
    }).pipe(Effect.provide([scripted("weather"), handlers.layer]))
  })

  it.effect("stateless: the turn comes from the prompt alone (a fresh layer answers the same)", () => {
    writeScript("stateless", WEATHER_SCRIPT)
    const prompt = Prompt.fromMessages([
      Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: "a" })] }),
      Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: "b" })] })
    ])
    return Effect.gen(function*() {
      const response = yield* LanguageModel.generateText({ prompt, disableToolCallResolution: true, toolkit: WeatherToolkit })
      expect(response.toolCalls.map((call) => call.id)).toEqual(["call_1_0"])
    }).pipe(Effect.provide([scripted("stateless"), weatherHandlers().layer]))
  })

  it.effect("streams text deltas and tool calls", () => {
    writeScript("streamed", WEATHER_SCRIPT)
    const handlers = weatherHandlers()
    return Effect.gen(function*() {
      const hello = yield* LanguageModel.streamText({ prompt: "hi" }).pipe(Stream.runCollect)
      expect(hello.flatMap((part) => part.type === "text-delta" ? [part.delta] : []).join("")).toBe("Hello! Ask me about the weather.")
      const prompt = Prompt.fromMessages([
        Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: "hi" })] }),
        Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: "weather?" })] })
      ])
      const calls = yield* LanguageModel.streamText({ prompt, toolkit: WeatherToolkit }).pipe(Stream.runCollect)
      expect(calls.find((part) => part.type === "tool-call")?.params).toEqual({ city: "Paris" })
      expect(calls.find((part) => part.type === "finish")?.reason).toBe("tool-calls")
      expect(handlers.calls).toEqual(["Paris"])
    }).pipe(Effect.provide([scripted("streamed"), handlers.layer]))
  })

  it.effect("an invalid script: an AgentRuntimeError naming the file and the line", () => {
    const missingReply = writeScript("bad", "turns:\n  - reply: ok\n  - tool_calls:\n      - name: get_weather\n")
    const badYaml = writeScript("bad-yaml", "turns:\n  - reply: ok\n   - reply: no\n")
    const badName = writeScript("bad-name", "turns:\n  - reply: ok\n    tool_calls:\n      - name: \"get weather\"\n")
    return Effect.gen(function*() {
      const error = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.flip,
        Effect.map((e) => AgentRuntimeError.fromAiError("builtin/scripted", e))
      )
      expect(error.message).toBe(`builtin/scripted: invalid script ${missingReply} at line 3: turns[1].reply: missing required field`)

      const yamlError = yield* Effect.flip(loadScript(badYaml))
      expect(yamlError).toBeInstanceOf(AgentRuntimeError)
      expect(yamlError.message).toMatch(new RegExp(`^builtin/scripted: invalid script ${badYaml} at line 3: invalid YAML`))

      const nameError = yield* Effect.flip(loadScript(badName))
      expect(nameError.message).toBe(
        `builtin/scripted: invalid script ${badName} at line 4: turns[0].tool_calls[0].name: expected a tool name (1 to 64 letters, digits, _ or -)`
      )

      const missing = yield* Effect.flip(loadScript(join(home, "agents", "nobody", "script.yml")))
      expect(missing.message).toBe(`builtin/scripted: no script: ${join(home, "agents", "nobody", "script.yml")} does not exist`)
    }).pipe(Effect.provide(scripted("bad")))
  })
})
