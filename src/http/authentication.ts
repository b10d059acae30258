/**
 * Authentication and authorization of an HTTP request (gateway-api.md
 * "Authentication"), from the headers alone, before any body is read:
 * 1. the `Authorization: Bearer` header, else the `svc_admin_token` cookie;
 *    public routes skip it, and so does everything with `SVC_AUTH=off`;
 * 2. a cookie credential on an unsafe method (POST, PUT, PATCH, DELETE)
 *    needs an `Origin` naming this gateway (scheme, host and port), else 403;
 * 3. a presented credential that fails counts against the client address's
 *    rate limit (429 + Retry-After once exceeded); a valid one is never refused;
 * 4. authorization against the route's declared access
 *    (src/http/authorization.ts): admin bypasses, device tokens need the
 *    route's scope, undeclared routes are denied to device tokens; a refusal
 *    appends `authz.denied` (route template, method, required scope, token id;
 *    never the credential) to the `gateway.auth` chain (docs/audit.md);
 * 5. `auth_failures_total` by reason.
 *
 * One {@link Authenticator} serves both places that authenticate: the
 * {@link AuthenticationLive} `HttpApiMiddleware` (the served endpoints that
 * declare `Authentication`, src/http/api/security.ts) and the global
 * middleware (src/http/middleware.ts: planned, switched-off and undeclared
 * routes, which answer 404 only after this).
 */
import { Cause, Effect, Layer, Option } from "effect"
import type * as Http from "node:http"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { authzDenied } from "../../services/audit/authEvents.ts"
import { AuditChains, Decision } from "../../services/domain-events/decisions.ts"
import { DomainEvents } from "../../services/domain-events/DomainEvents.ts"
import { AuthService } from "../../services/auth/AuthService.ts"
import { adminPrincipal, CurrentPrincipal, type Principal } from "../../services/auth/principal.ts"
import { type AuthFailureReason, GatewayMetrics } from "../../services/metrics/GatewayMetrics.ts"
import { Forbidden, Unauthorized } from "../../services/shared/errors.ts"
import { requiredScope, type RouteAccess } from "./api/access.ts"
import { Authentication } from "./api/security.ts"
import { authorizationFailure, endpointAccess } from "./authorization.ts"
import { bearerToken, requestCredential } from "./credentials.ts"
import { isSameOrigin, requestScheme } from "./origin.ts"
import { CurrentRequestId, failureResponse } from "./respond.ts"

const missingToken = new Unauthorized({
  message: "Provide a valid token via Authorization: Bearer <token> header or the svc_admin_token cookie"
})
const crossOrigin = new Forbidden({
  message: "cookie-authenticated requests that change state must come from this gateway's own origin (Origin header); " +
    "other clients use Authorization: Bearer"
})

/** Methods a browser may send cross-site without a preflight or that change nothing: no Origin check. */
const isSafeMethod = (method: string): boolean => method === "GET" || method === "HEAD" || method === "OPTIONS"

/** True when a cookie-authenticated request may use `method` (gateway-api.md: the cookie is for same-origin use). */
const cookieAllowed = (request: HttpServerRequest.HttpServerRequest, headers: HttpServerRequest.HttpServerRequest["headers"]): boolean => {
  if (isSafeMethod(request.method)) return true
  const encrypted = (request.source as { socket?: { encrypted?: boolean } }).socket?.encrypted
  return isSameOrigin(headers["origin"], headers["host"], requestScheme(encrypted, headers["x-forwarded-proto"]))
}

/**
 * What authenticating a request gives: `undefined` when the route needs no
 * credential (public, or auth off), the principal when it is known at once
 * (the admin token), else an effect that checks the token and authorizes
 * (its failures are the route's 401, 403 and 429; a storage failure is a 500).
 */
export type AuthOutcome = Principal | undefined | Effect.Effect<Principal, unknown>

/**
 * Authenticates and authorizes `request` for a route with `access`
 * (`undefined`: undeclared) and `template` (for the audit record).
 */
export type Authenticator = (
  request: HttpServerRequest.HttpServerRequest,
  headers: HttpServerRequest.HttpServerRequest["headers"],
  access: RouteAccess | undefined,
  template: string
) => AuthOutcome

/**
 * Node requests whose bearer token {@link authenticatedFromHeaders} found to
 * be the admin token, with that token: the {@link Authenticator} then knows
 * the principal without hashing the token a second time. Only a request that
 * presented the admin token has an entry, so comparing with it reveals nothing.
 */
const adminByHeaders = new WeakMap<Http.IncomingMessage, string>()

/** The largest body read ahead of the app ({@link authenticatedFromHeaders}); larger ones are read on demand. */
const READ_FIRST_MAX_BYTES = 64 * 1024

/**
 * A plain, synchronous check for the HTTP adapter's request callback
 * (`LeanNodeHttpServer.ReadBodyFirst`): `true` when `request` may have its
 * body read before the app runs, because authentication cannot refuse it: a
 * declared `content-length` of 1 byte to `min(maxBodyBytes, 64 KiB)`, and
 * either auth is off or the `Authorization: Bearer` token is the admin token
 * (admin passes authentication and authorization on every route). Anything
 * else (device tokens, cookies, no credential, chunked or large bodies) is
 * run at once and authenticated before its body is read, as before. The app
 * still runs every check (middleware unchanged); this only decides when the
 * body is read.
 */
export const authenticatedFromHeaders = (auth: AuthService["Service"], maxBodyBytes: number) => {
  const limit = Math.min(maxBodyBytes, READ_FIRST_MAX_BYTES)
  return (request: Http.IncomingMessage): boolean => {
    const headers = request.headers
    const declared = headers["content-length"]
    if (declared === undefined || headers["transfer-encoding"] !== undefined) return false
    const length = Number(declared)
    if (!(length > 0 && length <= limit)) return false
    if (!auth.enabled) return true
    const token = bearerToken(headers["authorization"])
    if (token === undefined || !auth.isAdminToken(token)) return false
    adminByHeaders.set(request, token)
    return true
  }
}

/** Builds the {@link Authenticator}; needs `AuthService`, `GatewayMetrics` and `DomainEvents`. */
export const makeAuthenticator = Effect.gen(function*() {
  const auth = yield* AuthService
  const metrics = yield* GatewayMetrics
  const domainEvents = yield* DomainEvents
  const authFailed = (reason: AuthFailureReason) => metrics.authFailure(reason)
  const credentialRefused = (error: unknown) =>
    Effect.sync(() => {
      const tag = (error as { readonly _tag?: unknown })._tag
      if (tag === "Unauthorized") authFailed("invalid_token")
      else if (tag === "TooManyRequests") authFailed("rate_limited")
    })
  // The refused route's template, never its raw path.
  const auditDenied = (principal: Principal, method: string, template: string, access: RouteAccess | undefined, denied: Forbidden) =>
    domainEvents.publishOrLog(Decision, {
      chain: AuditChains.auth,
      action: authzDenied(principal, {
        transport: "http",
        route: template,
        method,
        required_scope: access === undefined ? null : requiredScope(access, method) ?? null,
        reason: denied.message
      })
    })
  const failMissing = Effect.fail(missingToken)
  const failCrossOrigin = Effect.fail(crossOrigin)
  const authenticate: Authenticator = (request, headers, access, template) => {
    if (!auth.enabled || access?.kind === "public") return undefined
    const credential = requestCredential(request, headers)
    if (credential === undefined) {
      authFailed("missing_token")
      return failMissing
    }
    if (credential.source === "cookie" && !cookieAllowed(request, headers)) {
      authFailed("cross_origin")
      return failCrossOrigin
    }
    if (
      (credential.source === "bearer" && adminByHeaders.get(request.source as Http.IncomingMessage) === credential.token) ||
      auth.isAdminToken(credential.token)
    ) return adminPrincipal
    const method = request.method
    const clientAddress = Option.getOrElse(request.remoteAddress, () => "unknown")
    const attempt = auth.authenticateAttempt(credential.token, clientAddress)
    return Effect.flatMap(metrics.enabled ? Effect.tapError(attempt, credentialRefused) : attempt, (principal) => {
      const denied = authorizationFailure(access, method, principal)
      if (denied === undefined) return Effect.succeed(principal)
      authFailed("forbidden")
      return Effect.andThen(auditDenied(principal, method, template, access, denied), Effect.fail(denied))
    })
  }
  return authenticate
})

/**
 * Runs `effect` as the principal `outcome` gives, or answers the failure
 * (rendered by src/http/respond.ts, with `Retry-After` on a 429).
 */
export const runAuthenticated = <E, R>(
  outcome: AuthOutcome,
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
  if (outcome === undefined) return effect
  if (!Effect.isEffect(outcome)) return Effect.provideService(effect, CurrentPrincipal, outcome)
  return Effect.matchCauseEffect(outcome, {
    onFailure: (cause: Cause.Cause<unknown>) => Effect.flatMap(CurrentRequestId, (id) => failureResponse(cause, id)),
    onSuccess: (principal) => Effect.provideService(effect, CurrentPrincipal, principal)
  })
}

interface EndpointRoute {
  readonly access: RouteAccess | undefined
  readonly template: string
}

/**
 * The `Authentication` middleware of the served endpoints: either security
 * scheme leads to the same check of the request's credential (the bearer
 * header first, else the cookie), so a request is authenticated once. Needs
 * `AuthService`, `GatewayMetrics` and `DomainEvents`.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(makeAuthenticator, (authenticate) => {
    const routes = new WeakMap<HttpApiEndpoint.Top, EndpointRoute>()
    const routeOf = (endpoint: HttpApiEndpoint.Top, group: HttpApiGroup.Top): EndpointRoute => {
      let route = routes.get(endpoint)
      if (route === undefined) {
        route = { access: endpointAccess(endpoint, group), template: endpoint.path }
        routes.set(endpoint, route)
      }
      return route
    }
    const middleware = (
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, any, any>,
      options: { readonly endpoint: HttpApiEndpoint.Top; readonly group: HttpApiGroup.Top }
    ) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const route = routeOf(options.endpoint, options.group)
        return runAuthenticated(authenticate(request, request.headers, route.access, route.template), httpEffect)
      })
    return Authentication.of({ bearer: middleware, cookie: middleware })
  })
)
