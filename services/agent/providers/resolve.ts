/**
 * From a model id to the `LanguageModel` layer that serves it (issue 25 §1).
 * Model ids are `provider/model`: `openai/gpt-4.1-mini`, `anthropic/claude-sonnet-4-5`,
 * `builtin/echo`, `builtin/scripted` (the model part may itself hold
 * slashes, as OpenAI-compatible routers name theirs: `openai/meta-llama/llama-3.1-8b`).
 *
 * {@link providerFor} parses the id and answers a {@link ResolvedProvider}:
 * whether it needs a credential, its default base URL, and `layer(options)`,
 * which builds the `LanguageModel` layer once the runtime has the credential
 * (from `AuthProfiles.select` through the `SecretResolver`), the base URL
 * setting (`SVC_OPENAI_BASE_URL`, `SVC_ANTHROPIC_BASE_URL`) and, for
 * `builtin/scripted`, `$SVC_HOME` and the agent id. Every failure is an
 * `AgentRuntimeError` (502 `agent_runtime_error`), and
 * `ResolvedProvider.toRuntimeError` maps a failure of the model's calls to one.
 *
 * @module
 */
import type { Duration, Redacted } from "effect"
import { Effect, Layer } from "effect"
import { LanguageModel } from "effect/ai"
import type { HttpClient } from "effect/http"
import * as Anthropic from "./anthropic.ts"
import * as Builtin from "./builtin.ts"
import { AgentRuntimeError } from "./errors.ts"
import * as OpenAi from "./openai.ts"

/** The provider part of the model ids the gateway has layers for. */
export const KNOWN_PROVIDERS = ["openai", "anthropic", "builtin"] as const
export type ProviderId = (typeof KNOWN_PROVIDERS)[number]

/** The models of the `builtin` provider. */
export const BUILTIN_MODELS = ["echo", "scripted"] as const

/** What {@link ResolvedProvider.layer} needs besides the model id. */
export interface ProviderBuildOptions {
  /** The API key (`openai`, `anthropic`: required; builtins ignore it). */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** The API root; default {@link ResolvedProvider.defaultBaseUrl}. */
  readonly baseUrl?: string | undefined
  /** Per-request timeout of the HTTP providers (default 60 s). */
  readonly timeout?: Duration.Input | undefined
  /** `$SVC_HOME` (`builtin/scripted`: the script is `<home>/agents/<agentId>/script.yml`). */
  readonly home?: string | undefined
  /** The agent whose turn this is (`builtin/scripted`). */
  readonly agentId?: string | undefined
}

/** A parsed model id and how to build its `LanguageModel`. */
export interface ResolvedProvider {
  /** The model id as given: `openai/gpt-4.1-mini`. */
  readonly ref: string
  readonly provider: ProviderId
  /** The provider's own model id: `gpt-4.1-mini`, `echo`. */
  readonly model: string
  /** The name messages use: `openai`, `anthropic`, `builtin/echo`, `builtin/scripted`. */
  readonly name: string
  /** Whether `layer` needs `apiKey` (false for the builtins). */
  readonly needsCredential: boolean
  /** The API root used when `baseUrl` is not given (`undefined` for the builtins). */
  readonly defaultBaseUrl: string | undefined
  /**
   * The `LanguageModel` layer. Fails with an `AgentRuntimeError` when a
   * credential is needed and missing (`openai: no credential for
   * openai/gpt-4.1-mini: an API key is needed`), or when `builtin/scripted`
   * has no home or agent id. The HTTP providers need an `HttpClient`.
   */
  readonly layer: (options: ProviderBuildOptions) => Layer.Layer<LanguageModel.LanguageModel, AgentRuntimeError, HttpClient.HttpClient>
  /** The gateway error for a failure of this model's calls (`AgentRuntimeError.fromAiError(name, e)`). */
  readonly toRuntimeError: (error: unknown) => AgentRuntimeError
}

const fail = (message: string) => new AgentRuntimeError({ message })

const knownList = `known providers: ${KNOWN_PROVIDERS.join(", ")} (${BUILTIN_MODELS.map((model) => `builtin/${model}`).join(", ")})`

/** A layer that fails with `error` when built. */
const failing = (error: AgentRuntimeError) => Layer.effect(LanguageModel.LanguageModel, Effect.fail(error))

const missingCredential = (name: string, ref: string) =>
  failing(fail(`${name}: no credential for ${ref}: an API key is needed (an auth profile for the provider)`))

/**
 * Parses `modelRef` (`provider/model`) and answers how to build its model.
 * Fails with an `AgentRuntimeError` for an id that is not `provider/model`,
 * an unknown provider (the message lists the known ones) or an unknown
 * builtin model.
 */
export const providerFor = (modelRef: string): Effect.Effect<ResolvedProvider, AgentRuntimeError> => {
  const slash = modelRef.indexOf("/")
  if (slash <= 0 || slash === modelRef.length - 1) {
    return Effect.fail(fail(`invalid model id ${JSON.stringify(modelRef)}: expected provider/model (for example openai/gpt-4.1-mini); ${knownList}`))
  }
  const provider = modelRef.slice(0, slash)
  const model = modelRef.slice(slash + 1)
  const common = { ref: modelRef, model, toRuntimeError: (error: unknown) => AgentRuntimeError.fromAiError(provider, error) }
  switch (provider) {
    case "openai":
      return Effect.succeed({
        ...common,
        provider,
        name: provider,
        needsCredential: true,
        defaultBaseUrl: OpenAi.OPENAI_DEFAULT_BASE_URL,
        layer: (options) =>
          options.apiKey === undefined
            ? missingCredential(provider, modelRef)
            : OpenAi.layer({ apiKey: options.apiKey, baseUrl: options.baseUrl, model, timeout: options.timeout })
      })
    case "anthropic":
      return Effect.succeed({
        ...common,
        provider,
        name: provider,
        needsCredential: true,
        defaultBaseUrl: Anthropic.ANTHROPIC_DEFAULT_BASE_URL,
        layer: (options) =>
          options.apiKey === undefined
            ? missingCredential(provider, modelRef)
            : Anthropic.layer({ apiKey: options.apiKey, baseUrl: options.baseUrl, model, timeout: options.timeout })
      })
    case "builtin": {
      const name = modelRef
      const builtin = {
        ...common,
        provider,
        name,
        needsCredential: false,
        defaultBaseUrl: undefined,
        toRuntimeError: (error: unknown) => AgentRuntimeError.fromAiError(name, error)
      } as const
      if (model === "echo") return Effect.succeed({ ...builtin, layer: () => Builtin.echoLayer })
      if (model === "scripted") {
        return Effect.succeed({
          ...builtin,
          layer: (options) =>
            options.home === undefined || options.agentId === undefined
              ? failing(fail(`${name}: the script's location needs the home directory and the agent id`))
              : Builtin.scriptedLayer({ home: options.home, agentId: options.agentId })
        })
      }
      return Effect.fail(fail(`unknown builtin model ${JSON.stringify(modelRef)}: ${knownList}`))
    }
    default:
      return Effect.fail(fail(`unknown model provider ${JSON.stringify(provider)} in ${JSON.stringify(modelRef)}: ${knownList}`))
  }
}
