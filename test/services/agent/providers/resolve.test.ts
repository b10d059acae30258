/** `providerFor`: model id parsing, unknown providers, credentials, and the layers it builds. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { LanguageModel } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { AgentRuntimeError } from "../../../../services/agent/providers/errors.ts"
import { providerFor } from "../../../../services/agent/providers/resolve.ts"
import { API_KEY, wireServer } from "./support.ts"

const home = mkdtempSync(join(tmpdir(), "svc-resolve-"))
afterAll(() => rmSync(home, { recursive: true, force: true }))

describe("providerFor", () => {
  it.effect("parses provider/model ids", () =>
    Effect.gen(function*() {
      const openai = yield* providerFor("openai/gpt-4.1-mini")
      expect([openai.provider, openai.model, openai.name, openai.needsCredential, openai.defaultBaseUrl]).toEqual([
        "openai",
        "gpt-4.1-mini",
        "openai",
        true,
        "https://api.openai.com/v1"
      ])
      const routed = yield* providerFor("openai/meta-llama/llama-3.1-8b")
      expect(routed.model).toBe("meta-llama/llama-3.1-8b")
      const anthropic = yield* providerFor("anthropic/claude-sonnet-4-5")
      expect([anthropic.provider, anthropic.defaultBaseUrl]).toEqual(["anthropic", "https://api.anthropic.com/v1"])
      const echo = yield* providerFor("builtin/echo")
      expect([echo.name, echo.needsCredential]).toEqual(["builtin/echo", false])
    }))

  it.effect("unknown providers and malformed ids are AgentRuntimeErrors listing the known providers", () =>
    Effect.gen(function*() {
      const unknown = yield* Effect.flip(providerFor("mistral/large"))
      expect(unknown).toBeInstanceOf(AgentRuntimeError)
      expect(unknown.message).toBe(
        "unknown model provider \"mistral\" in \"mistral/large\": known providers: openai, anthropic, builtin (builtin/echo, builtin/scripted)"
      )
      expect((yield* Effect.flip(providerFor("gpt-4"))).message).toMatch(/^invalid model id "gpt-4": expected provider\/model/)
      expect((yield* Effect.flip(providerFor("openai/"))).message).toMatch(/^invalid model id/)
      expect((yield* Effect.flip(providerFor("builtin/parrot"))).message).toMatch(/^unknown builtin model "builtin\/parrot": known providers/)
    }))

  it.effect("an HTTP provider without a credential: the layer fails naming the provider, no value", () =>
    Effect.gen(function*() {
      const openai = yield* providerFor("openai/gpt-4.1-mini")
      const error = yield* Effect.flip(Layer.build(openai.layer({})).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))
      expect(error.message).toBe("openai: no credential for openai/gpt-4.1-mini: an API key is needed (an auth profile for the provider)")
    }))

  it.live("builds a working layer: openai with the credential and base URL, echo, scripted for an agent", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* wireServer([{
        json: { id: "c", choices: [{ message: { content: "from the server" }, finish_reason: "stop" }] }
      }])
      const openai = yield* providerFor("openai/gpt-4.1-mini")
      const viaServer = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(Layer.provide(openai.layer({ apiKey: Redacted.make(API_KEY), baseUrl: server.url }), FetchHttpClient.layer))
      )
      expect(viaServer.text).toBe("from the server")
      expect(server.seen[0]?.body.model).toBe("gpt-4.1-mini")

      const echo = yield* providerFor("builtin/echo")
      const echoed = yield* LanguageModel.generateText({ prompt: "ping" }).pipe(
        Effect.provide(Layer.provide(echo.layer({}), FetchHttpClient.layer))
      )
      expect(echoed.text).toBe("ping")

      mkdirSync(join(home, "agents", "a1"), { recursive: true })
      writeFileSync(join(home, "agents", "a1", "script.yml"), "turns:\n  - reply: scripted hello\n")
      const scripted = yield* providerFor("builtin/scripted")
      const answered = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(Layer.provide(scripted.layer({ home, agentId: "a1" }), FetchHttpClient.layer))
      )
      expect(answered.text).toBe("scripted hello")

      const noAgent = yield* Effect.flip(Layer.build(scripted.layer({ home })).pipe(Effect.provide(FetchHttpClient.layer)))
      expect(noAgent.message).toMatch(/^builtin\/scripted: the script's location needs/)
      const badAgent = yield* Effect.flip(Layer.build(scripted.layer({ home, agentId: "../etc" })).pipe(Effect.provide(FetchHttpClient.layer)))
      expect(badAgent.message).toMatch(/^builtin\/scripted: agent id: expected an agent id/)

      const missing = yield* LanguageModel.generateText({ prompt: "hi" }).pipe(
        Effect.provide(Layer.provide(scripted.layer({ home, agentId: "nobody" }), FetchHttpClient.layer)),
        Effect.flip,
        Effect.map(scripted.toRuntimeError)
      )
      expect(missing.message).toBe(`builtin/scripted: no script: ${join(home, "agents", "nobody", "script.yml")} does not exist`)
    })))
})
