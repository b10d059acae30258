/**
 * The typed HTTP client of the gateway, derived from the same declaration
 * that routes, authorizes and documents the API (`GatewayApi`,
 * src/http/api/): one method per endpoint, grouped like the API
 * (`client.policy.check({ payload })`, `client.auth.issueDeviceToken(...)`),
 * with the request and response schemas of the declaration. Error responses
 * decode to their declared bodies (`{error, message}`) in the error channel.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { makeGatewayHttpClient } from "svc-gateway/client"
 *
 * const program = Effect.gen(function*() {
 *   const gateway = yield* makeGatewayHttpClient({ baseUrl: "http://127.0.0.1:8788", token })
 *   return yield* gateway.policy.check({ payload: { spend: { amount_minor_units: 100, currency: "EUR" } } })
 * })
 * Effect.runPromise(program.pipe(Effect.provide(FetchHttpClient.layer)))
 * ```
 */
import { HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { GatewayApi } from "../app/contracts.ts"
import type { Effect } from "effect"

/** Options of {@link makeGatewayHttpClient}. */
export interface GatewayHttpClientOptions {
  /** The gateway's base URL, e.g. `http://127.0.0.1:8788`. */
  readonly baseUrl: string
  /** Admin or device token, sent as `Authorization: Bearer`; omit for public routes only. */
  readonly token?: string | undefined
}

/**
 * A typed client of {@link GatewayApi} over the `HttpClient` in context
 * (e.g. `FetchHttpClient.layer`).
 */
/** The typed client of `GatewayApi`: one method per endpoint, by group. */
export type GatewayHttpClient = HttpApiClient.ForApi<GatewayApi>

export const makeGatewayHttpClient = (
  options: GatewayHttpClientOptions
): Effect.Effect<GatewayHttpClient, never, HttpClient.HttpClient> =>
  HttpApiClient.make(GatewayApi, {
    baseUrl: options.baseUrl,
    transformClient: options.token === undefined
      ? undefined
      : HttpClient.mapRequest(HttpClientRequest.bearerToken(options.token))
  })
