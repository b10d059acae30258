/**
 * The shared secret of the runner listener (issue 27 §1; docs/scaling.md
 * "Runners"): every request between the runners of one cluster carries
 * `authorization: Bearer <SVC_CLUSTER_SECRET>`. {@link runnerAuthMiddleware}
 * is the listener's side (a global `HttpRouter` middleware answering 401
 * `{error: "unauthorized", message}` to any request without the secret,
 * compared in constant time); {@link authenticatedRunnerClient} is the
 * caller's side (the runners' `HttpClient` with the header added). The
 * secret is never logged nor repeated in a response.
 *
 * @module
 */
import { Effect, Layer, Redacted } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { makeSecretMatcher } from "../auth/tokenCrypto.ts"

/** The body of the runner listener's 401. */
export const RUNNER_UNAUTHORIZED = {
  error: "unauthorized",
  message: "the runner listener needs the cluster secret (authorization: Bearer <SVC_CLUSTER_SECRET>)"
} as const

/** The bearer value of an `authorization` header, or `undefined` (any other scheme, or none). */
const bearerOf = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const match = /^Bearer\s+(.+)$/i.exec(header.trim())
  return match === null ? undefined : match[1]!.trim()
}

/**
 * A global `HttpRouter` middleware for the runner listener: a request whose
 * `authorization` is not `Bearer <secret>` (constant-time comparison of
 * SHA-256 digests) is answered 401 {@link RUNNER_UNAUTHORIZED} without
 * reaching the runner's RPC handler.
 */
export const runnerAuthMiddleware = (secret: Redacted.Redacted<string>): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  const matches = makeSecretMatcher(Redacted.value(secret))
  return HttpRouter.middleware((httpEffect) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const presented = bearerOf(request.headers["authorization"])
      return presented !== undefined && matches(presented)
        ? yield* httpEffect
        : HttpServerResponse.jsonUnsafe(RUNNER_UNAUTHORIZED, { status: 401 })
    }), { global: true })
}

/**
 * The `HttpClient` of the runners: the `HttpClient` in the environment with
 * `authorization: Bearer <secret>` on every request.
 */
export const authenticatedRunnerClient = (
  secret: Redacted.Redacted<string>
): Layer.Layer<HttpClient.HttpClient, never, HttpClient.HttpClient> =>
  Layer.effect(HttpClient.HttpClient)(Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    return HttpClient.mapRequest(client, HttpClientRequest.bearerToken(Redacted.value(secret)))
  }))
