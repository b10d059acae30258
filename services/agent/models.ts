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
 * Built models are kept ({@link MODEL_CACHE_SIZE}, least recently used out),
 * so `effect/ai`'s per-model caches (its response decoders) serve every turn
 * instead of being compiled again for each: keyed by the model id, the base
 * URL, the agent (`builtin/scripted` reads the agent's script) and the auth
 * profile chosen. The profile is still selected, and its credential
 * resolved, on every turn: a kept model is used only while the same profile
 * resolves to the same credential, so a disabled profile, a revoked secret
 * or a rotated key takes effect on the next turn (the stale entry is
 * replaced).
 *
 * @module
 */
import { Context, Effect, Layer, Redacted } from "effect"
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

/** How many built models {@link AgentModels} keeps. */
export const MODEL_CACHE_SIZE = 64

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

      /** Built models by what they were built from; the credential they hold is compared on every use. */
      const built = new Map<string, { readonly credential: string | undefined; readonly languageModel: LanguageModel.LanguageModel }>()
      const keep = (key: string, entry: { readonly credential: string | undefined; readonly languageModel: LanguageModel.LanguageModel }) => {
        built.delete(key)
        if (built.size >= MODEL_CACHE_SIZE) built.delete(built.keys().next().value!)
        built.set(key, entry)
      }

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
        const key = [
          provider.ref,
          baseUrl(provider) ?? "",
          provider.provider === "builtin" ? request.agentId : "",
          selected?.profile.auth_profile_id ?? ""
        ].join("\u0000")
        const credential = selected === undefined ? undefined : Redacted.value(selected.credential)
        const kept = built.get(key)
        if (kept !== undefined && kept.credential === credential) {
          // Most recently used last.
          keep(key, kept)
          return { languageModel: kept.languageModel, provider }
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
        keep(key, { credential, languageModel })
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
