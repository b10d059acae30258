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
import { requestCredential } from "./credentials.ts"
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
    if (auth.isAdminToken(credential.token)) return adminPrincipal
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
