/**
 * Which language model a turn calls (issue 25 §1; docs/agent.md "Models"):
 * a model id `provider/model` (the session's `/model`, else
 * `SVC_AGENT_MODEL`) becomes an `effect/ai` `LanguageModel` through
 * providers/resolve.ts. Providers that need a credential get it from
 * `AuthProfiles.select` (the session's pinned profile, else the agent's
 * oldest active one for the provider) through the secret resolver — never
 * from a plain environment variable. The HTTP providers' base URLs are
 * settings (`SVC_OPENAI_BASE_URL`, `SVC_ANTHROPIC_BASE_URL`); requests go
 * through Effect's fetch `HttpClient` (Node and Deno alike).
 *
 * @module
 */
import { Context, Effect, Layer } from "effect"
import { LanguageModel } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { GatewayConfig } from "../../layers/config.ts"
import { AuthProfiles } from "../auth-profiles/AuthProfiles.ts"
import { AgentRuntimeError } from "./errors.ts"
import { providerFor, type ResolvedProvider } from "./providers/resolve.ts"

/** Whether a provider can be used for an agent: `reason` says what is missing (never a value). */
export interface ProviderReadiness {
  readonly provider: string
  readonly ready: boolean
  readonly reason?: string | undefined
}

/** What a turn needs to know to call its model. */
export interface ModelRequest {
  readonly agentId: string
  readonly sessionId: string
  readonly modelRef: string
}

/** A turn's model: the `LanguageModel` and how its failures read as gateway errors. */
export interface TurnModel {
  readonly languageModel: LanguageModel.LanguageModel
  readonly provider: ResolvedProvider
}

/** A token estimate of `chars` characters (4 characters a token). */
export const estimateTokens = (chars: number): number => Math.ceil(chars / 4)

/** Turns a model id into a `LanguageModel` for one turn, and tells whether a provider is usable. */
export class AgentModels extends Context.Service<AgentModels, {
  /** The language model of `request.modelRef`; `AgentRuntimeError` naming the provider and what is missing. */
  readonly forTurn: (request: ModelRequest) => Effect.Effect<TurnModel, AgentRuntimeError>
  /** Whether `modelRef`'s provider is usable for `agentId` (credential resolvable; never its value). */
  readonly readiness: (agentId: string, modelRef: string) => Effect.Effect<ProviderReadiness>
}>()("svc-gateway/agent/AgentModels") {
  /** Needs `GatewayConfig` (home, base URLs) and `AuthProfiles`. */
  static readonly layer = Layer.effect(
    AgentModels,
    Effect.gen(function*() {
      const settings = yield* GatewayConfig
      const profiles = yield* AuthProfiles
      const baseUrl = (provider: ResolvedProvider) =>
        provider.provider === "openai"
          ? settings.openaiBaseUrl
          : provider.provider === "anthropic"
          ? settings.anthropicBaseUrl
          : undefined

      const forTurn = Effect.fn("AgentModels.forTurn")(function*(request: ModelRequest) {
        const provider = yield* providerFor(request.modelRef)
        const selected = provider.needsCredential
          ? yield* profiles.select(request.agentId, request.sessionId, provider.provider)
          : undefined
        if (provider.needsCredential && selected === undefined) {
          return yield* new AgentRuntimeError({
            message: `${provider.name}: no credential for ${request.modelRef}: no active auth profile of agent ` +
              `${request.agentId} for provider ${provider.provider} resolves (POST /auth/profiles with a secret handle)`
          })
        }
        const layer = provider.layer({
          apiKey: selected?.credential,
          baseUrl: baseUrl(provider),
          home: settings.home,
          agentId: request.agentId
        }).pipe(Layer.provide(FetchHttpClient.layer))
        const languageModel = yield* Effect.scoped(Layer.build(layer)).pipe(
          Effect.map((context) => Context.get(context, LanguageModel.LanguageModel))
        )
        return { languageModel, provider }
      })

      const readiness = Effect.fn("AgentModels.readiness")(function*(agentId: string, modelRef: string) {
        const resolved = yield* Effect.result(providerFor(modelRef))
        if (resolved._tag === "Failure") return { provider: modelRef.split("/")[0] ?? modelRef, ready: false, reason: resolved.failure.message }
        const provider = resolved.success
        if (!provider.needsCredential) return { provider: provider.provider, ready: true }
        const selected = yield* profiles.select(agentId, "", provider.provider)
        return selected === undefined
          ? { provider: provider.provider, ready: false, reason: `no active auth profile of agent ${agentId} for ${provider.provider} resolves` }
          : { provider: provider.provider, ready: true }
      })

      return AgentModels.of({ forTurn, readiness })
    })
  )
}
