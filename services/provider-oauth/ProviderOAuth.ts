/**
 * Provider OAuth: the authorization code flow with PKCE (gateway-api.md
 * "Provider OAuth"; reference §7.11; docs/provider-oauth.md).
 *
 * - `authorize` stores a pending authorization (random `state`, PKCE
 *   verifier, redirect URI; 10 minutes) and answers the provider's authorize
 *   URL with the S256 challenge.
 * - `callback` takes the pending authorization in ONE conditional write
 *   (single use, bound to the provider, unexpired), then exchanges the code
 *   at the provider's `token_url` with the verifier (Effect `HttpClient`,
 *   with a timeout), stores the tokens as secrets and creates or updates the
 *   agent's `oauth` auth profile.
 *
 * Tokens never leave the process: they go from the token response into
 * `SecretStore` as `Redacted` values and are never logged or echoed.
 *
 * @module
 */
import { Clock, Context, Duration, Effect, Layer, Redacted, Schema } from "effect"
import { HttpClient, HttpClientRequest, FetchHttpClient } from "effect/http"
import { GatewayConfig } from "../../layers/config.ts"
import { AuthProfiles } from "../auth-profiles/AuthProfiles.ts"
import { SecretResolver, SecretStore } from "../secrets/SecretStore.ts"
import { InvalidRequest, NotFound } from "../shared/errors.ts"
import { type OAuthProviderConfig, ProviderOAuthConfig } from "./config.ts"
import { InvalidCallback } from "./errors.ts"
import { PendingRepo } from "./PendingRepo.ts"
import { challengeS256, makeVerifier, randomToken } from "./pkce.ts"
import {
  DEFAULT_AGENT_ID,
  type OAuthAuthorizeRequest,
  type OAuthAuthorizeResponse,
  type OAuthCallbackQuery
} from "./schema.ts"
import { isoTime as iso } from "../shared/time.ts"

/** What a callback with a valid state ends in (both are answered 200 with a page). */
export type CallbackOutcome =
  | {
    readonly _tag: "Connected"
    readonly provider: string
    readonly agent_id: string
    readonly auth_profile_id: string
  }
  | {
    readonly _tag: "Failed"
    readonly provider: string
    /** An OAuth error code (the provider's `error`, or ours: `token_exchange_failed`, …). */
    readonly error: string
    readonly description?: string | undefined
  }

/** The secret-scope purpose of a provider's client secret resolution. */
export const clientSecretPurpose = (provider: string) => `oauth:${provider}:client-secret`

/** Secret scopes of an agent's tokens. */
export const tokenScope = (provider: string, agent: string, kind: "access" | "refresh") => `oauth:${provider}:${agent}:${kind}`

/** The token endpoint's answer (RFC 6749 §5.1); other fields are ignored. */
const TokenResponse = Schema.Struct({
  access_token: Schema.String.check(Schema.isMinLength(1)),
  refresh_token: Schema.optionalKey(Schema.String),
  expires_in: Schema.optionalKey(Schema.Number),
  token_type: Schema.optionalKey(Schema.String)
})
const decodeTokenResponse = Schema.decodeUnknownOption(TokenResponse)

/** An OAuth error code as RFC 6749 allows it (`%x20-21 / %x23-5B / %x5D-7E`), short. */
const OAUTH_ERROR_CODE = /^[\x20\x21\x23-\x5B\x5D-\x7E]{1,64}$/
const MAX_TOKEN_RESPONSE_CHARS = 1_048_576


/**
 * The redirect base: `public_base_url` (absolute http(s), no query, fragment
 * or credentials; a trailing `/` is dropped), or the gateway's own address
 * from its settings. `undefined` when `public_base_url` is invalid.
 */
export const redirectBase = (publicBaseUrl: string | undefined, host: string, port: number): string | undefined => {
  if (publicBaseUrl === undefined) {
    const h = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host
    return `http://${h.includes(":") && !h.startsWith("[") ? `[${h}]` : h}:${port}`
  }
  if (publicBaseUrl.includes("?") || publicBaseUrl.includes("#")) return undefined
  let url: URL
  try {
    url = new URL(publicBaseUrl)
  } catch {
    return undefined
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  if (url.username !== "" || url.password !== "") return undefined
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`
}

/** The provider OAuth service. */
export class ProviderOAuth extends Context.Service<ProviderOAuth, {
  /**
   * Starts an authorization for `provider`. `NotFound` when the provider is
   * not configured (or none is); `InvalidRequest` for a bad
   * `public_base_url` or a client secret handle that does not exist.
   */
  readonly authorize: (
    provider: string,
    request: OAuthAuthorizeRequest
  ) => Effect.Effect<OAuthAuthorizeResponse, NotFound | InvalidRequest>
  /**
   * Completes an authorization. `InvalidCallback` for missing parameters or
   * an invalid, expired, used or other provider's state; otherwise the
   * outcome (connected, or failed with an OAuth error code).
   */
  readonly callback: (provider: string, query: OAuthCallbackQuery) => Effect.Effect<CallbackOutcome, InvalidCallback>
}>()("svc-gateway/provider-oauth/ProviderOAuth") {
  /**
   * Needs {@link PendingRepo}, {@link ProviderOAuthConfig}, an `HttpClient`,
   * `SecretStore`, `SecretResolver`, `AuthProfiles` and `GatewayConfig`.
   * Logs (warning) every configured client secret handle that does not exist.
   */
  static readonly layerNoDeps = Layer.effect(
    ProviderOAuth,
    Effect.gen(function*() {
      const repo = yield* PendingRepo
      const config = yield* ProviderOAuthConfig
      const http = yield* HttpClient.HttpClient
      const secrets = yield* SecretStore
      const resolver = yield* SecretResolver
      const profiles = yield* AuthProfiles
      const settings = yield* GatewayConfig

      for (const provider of config.providers.values()) {
        if (provider.client_secret_handle === undefined) continue
        yield* secrets.get(provider.client_secret_handle).pipe(
          Effect.catchTag("NotFound", () =>
            Effect.logWarning("OAuth provider client secret handle not found; its authorize answers 400 until it exists")
              .pipe(Effect.annotateLogs({ provider: provider.id, client_secret_handle: provider.client_secret_handle })))
        )
      }

      const findProvider = (id: string) => {
        const provider = config.providers.get(id)
        return provider === undefined
          ? Effect.fail(new NotFound({ message: `OAuth provider ${id} is not configured` }))
          : Effect.succeed(provider)
      }

      const authorize = Effect.fn("ProviderOAuth.authorize")(function*(providerId: string, request: OAuthAuthorizeRequest) {
        const provider = yield* findProvider(providerId)
        const base = redirectBase(request.public_base_url, settings.host, settings.port)
        if (base === undefined) {
          return yield* new InvalidRequest({
            message: "public_base_url must be an absolute http or https URL without query, fragment or credentials"
          })
        }
        if (provider.client_secret_handle !== undefined) {
          const handle = provider.client_secret_handle
          yield* secrets.get(handle).pipe(Effect.catchTag("NotFound", () =>
            Effect.fail(new InvalidRequest({
              message: `the client secret of OAuth provider ${provider.id} is missing: secret handle ${handle} does not exist`
            }))))
        }
        const now = yield* Clock.currentTimeMillis
        const state = randomToken(32)
        const verifier = makeVerifier()
        const agent = request.agent_id ?? DEFAULT_AGENT_ID
        const redirectUri = `${base}/providers/${encodeURIComponent(provider.id)}/oauth/callback`
        const expiresAt = iso(now + Duration.toMillis(config.pendingTtl))
        yield* repo.deleteExpired(iso(now))
        yield* repo.insert({
          state,
          provider_id: provider.id,
          agent_id: agent,
          pkce_verifier: verifier,
          redirect_uri: redirectUri,
          created_at: iso(now),
          expires_at: expiresAt
        })
        const url = new URL(provider.authorize_url)
        url.searchParams.set("response_type", "code")
        url.searchParams.set("client_id", provider.client_id)
        url.searchParams.set("redirect_uri", redirectUri)
        url.searchParams.set("state", state)
        url.searchParams.set("code_challenge", challengeS256(verifier))
        url.searchParams.set("code_challenge_method", "S256")
        const scopes = provider.scopes ?? []
        if (scopes.length > 0) url.searchParams.set("scope", scopes.join(" "))
        return {
          status: "ok" as const,
          provider: provider.id,
          state,
          expires_at: expiresAt,
          authorize_url: url.toString()
        }
      })

      const failed = (provider: string, error: string, description?: string): CallbackOutcome => ({
        _tag: "Failed",
        provider,
        error,
        ...(description !== undefined ? { description } : {})
      })

      /** Exchanges the code; the token response, or the failure outcome. */
      const exchange = Effect.fnUntraced(function*(
        provider: OAuthProviderConfig,
        code: string,
        pending: { readonly pkce_verifier: string; readonly redirect_uri: string }
      ) {
        const form: Record<string, string> = {
          grant_type: "authorization_code",
          code,
          redirect_uri: pending.redirect_uri,
          client_id: provider.client_id,
          code_verifier: pending.pkce_verifier
        }
        if (provider.client_secret_handle !== undefined) {
          const secret = yield* Effect.result(resolver.resolve(provider.client_secret_handle, clientSecretPurpose(provider.id)))
          if (secret._tag === "Failure") {
            yield* Effect.logWarning("OAuth client secret handle not found at callback").pipe(
              Effect.annotateLogs({ provider: provider.id, client_secret_handle: provider.client_secret_handle })
            )
            return failed(provider.id, "client_secret_unavailable", "the provider's client secret is not stored in the gateway")
          }
          form.client_secret = Redacted.value(secret.success)
        }
        const request = HttpClientRequest.post(provider.token_url).pipe(
          HttpClientRequest.acceptJson,
          HttpClientRequest.bodyUrlParams(form)
        )
        const answer = yield* Effect.result(
          http.execute(request).pipe(
            Effect.flatMap((response) => Effect.map(response.text, (text) => ({ status: response.status, text }))),
            Effect.timeout(config.tokenTimeout)
          )
        )
        if (answer._tag === "Failure") {
          const timedOut = answer.failure._tag === "TimeoutError"
          yield* Effect.logWarning("OAuth token exchange failed").pipe(
            Effect.annotateLogs({ provider: provider.id, reason: timedOut ? "timeout" : answer.failure._tag })
          )
          return timedOut
            ? failed(provider.id, "token_exchange_timeout", `the token endpoint did not answer within ${Duration.format(config.tokenTimeout)}`)
            : failed(provider.id, "token_exchange_failed", "the token endpoint could not be reached")
        }
        const { status, text } = answer.success
        let body: unknown = undefined
        if (text.length <= MAX_TOKEN_RESPONSE_CHARS) {
          try {
            body = JSON.parse(text)
          } catch {
            body = undefined
          }
        }
        if (status < 200 || status >= 300) {
          const reported = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}
          const error = typeof reported.error === "string" && OAUTH_ERROR_CODE.test(reported.error)
            ? reported.error
            : "token_exchange_failed"
          const description = typeof reported.error_description === "string"
            ? `${reported.error_description.slice(0, 300)} (token endpoint status ${status})`
            : `the token endpoint answered status ${status}`
          yield* Effect.logWarning("OAuth token exchange rejected").pipe(
            Effect.annotateLogs({ provider: provider.id, status, error })
          )
          return failed(provider.id, error, description)
        }
        const tokens = decodeTokenResponse(body)
        if (tokens._tag === "None") {
          yield* Effect.logWarning("OAuth token response invalid").pipe(Effect.annotateLogs({ provider: provider.id, status }))
          return failed(provider.id, "invalid_token_response", "the token endpoint's answer has no access token")
        }
        return tokens.value
      })

      const callback = Effect.fn("ProviderOAuth.callback")(function*(providerId: string, query: OAuthCallbackQuery) {
        const state = query.state
        if (state === undefined || state.length === 0) return yield* new InvalidCallback({ message: "the state parameter is missing" })
        const hasError = query.error !== undefined && query.error.length > 0
        if (!hasError && (query.code === undefined || query.code.length === 0)) {
          return yield* new InvalidCallback({ message: "the code parameter is missing" })
        }
        const provider = config.providers.get(providerId)
        const invalidState = new InvalidCallback({ message: "the state is invalid, expired or already used" })
        if (provider === undefined) return yield* invalidState
        const now = iso(yield* Clock.currentTimeMillis)
        const pending = yield* repo.consume(state, provider.id, now)
        if (pending === undefined) return yield* invalidState
        if (hasError) {
          return failed(provider.id, query.error!, query.error_description)
        }
        const tokens = yield* exchange(provider, query.code!, pending)
        if ("_tag" in tokens) return tokens
        const agent = pending.agent_id
        const stored = yield* Effect.result(Effect.gen(function*() {
          const access = yield* secrets.store({
            scope: tokenScope(provider.id, agent, "access"),
            value: Redacted.make(tokens.access_token),
            agent_id: agent
          })
          const refresh = tokens.refresh_token === undefined || tokens.refresh_token.length === 0
            ? undefined
            : yield* secrets.store({
              scope: tokenScope(provider.id, agent, "refresh"),
              value: Redacted.make(tokens.refresh_token),
              agent_id: agent
            })
          return yield* profiles.upsertOAuth({
            agent_id: agent,
            provider: provider.id,
            access_token: access.handle_id,
            refresh_token: refresh?.handle_id
          })
        }))
        if (stored._tag === "Failure") {
          yield* Effect.logWarning("OAuth tokens could not be stored").pipe(
            Effect.annotateLogs({ provider: provider.id, agent_id: agent, problem: stored.failure.message })
          )
          return failed(provider.id, "token_storage_failed", "the gateway could not store the tokens")
        }
        return {
          _tag: "Connected" as const,
          provider: provider.id,
          agent_id: agent,
          auth_profile_id: stored.success.auth_profile_id
        }
      })

      return ProviderOAuth.of({ authorize, callback })
    })
  )

  /**
   * Wired for the gateway: its repository, the providers from the settings
   * and `fetch` as the `HttpClient`. Still needs `SecretStore`,
   * `SecretResolver` and `AuthProfiles` (the composition root provides them),
   * `GatewayConfig` and a `SqlClient`.
   */
  static readonly layer = ProviderOAuth.layerNoDeps.pipe(
    Layer.provide([PendingRepo.layer, ProviderOAuthConfig.layer, FetchHttpClient.layer])
  )

  /**
   * Provider OAuth switched off (auth profiles disabled): authorize answers
   * 404 for every provider, the callback the 400 page. `reason` is in the
   * 404 message.
   */
  static readonly disabled = (reason: string) =>
    Layer.succeed(ProviderOAuth, {
      authorize: () => Effect.fail(new NotFound({ message: `provider OAuth is not available: ${reason}` })),
      callback: () => Effect.fail(new InvalidCallback({ message: "the state is invalid, expired or already used" }))
    })
}
