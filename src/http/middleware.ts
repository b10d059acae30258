/**
 * The gateway's one global HTTP middleware. Per request, in order:
 * 1. `x-request-id`: the caller's (when sane), else `req-<uuid>`; set on every response.
 * 2. Body limit: a declared `content-length` above the limit is refused (413)
 *    before reading; streamed bodies are cut at the same limit.
 * 3. Authentication (gateway-api.md "Authentication") from the headers alone,
 *    before any body is read: Bearer header, else the `svc_admin_token`
 *    cookie; the public allowlist skips it. 401 comes before 404. A presented
 *    credential that fails counts against the client address's rate limit
 *    (429 + Retry-After once exceeded); a valid one is never refused.
 * 4. Cookie credentials on unsafe methods (POST, PUT, PATCH, DELETE) need an
 *    `Origin` naming this gateway (scheme, host and port), else 403: a page on
 *    another origin, even another port of the same host, cannot act with the
 *    operator's cookie. Bearer requests are unaffected.
 * 5. Authorization against the declared routes (src/http/authorization.ts):
 *    admin bypasses; device tokens need the route's scope; undeclared routes
 *    are denied (403) to device tokens.
 * 6. Every failure is mapped by `respond.ts` (one place).
 * 7. Audit (docs/audit.md): an authorization refusal publishes the decision
 *    `authz.denied` (route template, method, required scope, the caller's
 *    token id; never the credential) for the `gateway.auth` chain; refused
 *    credentials are audited by `AuthService` (`auth.failed`).
 * 8. Metrics (docs/operations.md "Metrics"), recorded here and only here:
 *    `http_requests_total` and `http_request_duration_seconds` by the
 *    matched route's declared template (`/*` when none matched, so raw
 *    paths never become labels), and `auth_failures_total` by reason.
 */
import { ByteSize, Effect, Option, type Types } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { DomainEvents } from "../../services/domain-events/DomainEvents.ts"
import { authzDenied } from "../../services/audit/authEvents.ts"
import { AuditChains, Decision } from "../../services/domain-events/decisions.ts"
import { AuthService } from "../../services/auth/AuthService.ts"
import { adminPrincipal, CurrentPrincipal, type Principal } from "../../services/auth/principal.ts"
import { type AuthFailureReason, GatewayMetrics } from "../../services/metrics/GatewayMetrics.ts"
import { Forbidden, PayloadTooLarge, Unauthorized } from "../../services/shared/errors.ts"
import { GatewayConfig } from "../../layers/config.ts"
import { requiredScope, type RouteAccess } from "./api/access.ts"
import { authorizationFailure, makeRouteMatcher } from "./authorization.ts"
import { requestCredential } from "./credentials.ts"
import { isSameOrigin, requestScheme } from "./origin.ts"
import { pathOf } from "./path.ts"
import { failureResponse } from "./respond.ts"
import type { RouteEntry } from "./router.ts"

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/

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

/** Installs the middleware for every route of the router (global), authorizing against `routes`. */
export const gatewayMiddleware = (routes: ReadonlyArray<RouteEntry>) => HttpRouter.middleware(
  Effect.gen(function*() {
    const auth = yield* AuthService
    const settings = yield* GatewayConfig
    const metrics = yield* GatewayMetrics
    const domainEvents = yield* DomainEvents
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
    // One lookup per request gives the route's access rule, template and metrics series (built now, once per route).
    const matchRoute = makeRouteMatcher(routes, (entry) => ({
      access: entry.access,
      template: entry.path,
      series: metrics.httpRoute(entry.path)
    }))
    const unmatched = { access: undefined, template: "/*", series: metrics.httpRoute("/*") }
    const authFailed = (reason: AuthFailureReason) => metrics.authFailure(reason)
    const credentialRefused = (error: unknown) =>
      Effect.sync(() => {
        const tag = (error as { readonly _tag?: unknown })._tag
        if (tag === "Unauthorized") authFailed("invalid_token")
        else if (tag === "TooManyRequests") authFailed("rate_limited")
      })
    const maxBody = ByteSize.bytes(settings.maxBodyBytes)
    const tooLarge = new PayloadTooLarge({
      message: `request body exceeds ${settings.maxBodyBytes} bytes`
    })

    // The router types a global middleware as one that leaves errors "unhandled";
    // this one deliberately handles every failure (it is the error mapping), hence the cast.
    return (httpEffect) => {
      // Built once per wrapped effect; per request only what depends on the request is allocated.
      const bounded: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown> = Effect.provideService(
        httpEffect,
        HttpIncomingMessage.MaxBodySize,
        maxBody
      )
      const runAs = (principal: Principal) => Effect.provideService(bounded, CurrentPrincipal, principal)
      return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        // Read the headers once (some adapters build the object on every access).
        const headers = request.headers
        const incomingId = headers["x-request-id"]
        const requestId = incomingId !== undefined && REQUEST_ID.test(incomingId) ? incomingId : `req-${crypto.randomUUID()}`
        const method = request.method
        const started = metrics.enabled ? performance.now() : 0
        const route = matchRoute(method, pathOf(request.url)) ?? unmatched
        const access = route.access

        let program = bounded
        if (auth.enabled && access?.kind !== "public") {
          const credential = requestCredential(request, headers)
          if (credential === undefined) {
            authFailed("missing_token")
            program = Effect.fail(missingToken)
          } else if (credential.source === "cookie" && !cookieAllowed(request, headers)) {
            authFailed("cross_origin")
            program = Effect.fail(crossOrigin)
          } else if (auth.isAdminToken(credential.token)) program = runAs(adminPrincipal)
          else {
            const clientAddress = Option.getOrElse(request.remoteAddress, () => "unknown")
            const attempt = auth.authenticateAttempt(credential.token, clientAddress)
            program = Effect.flatMap(metrics.enabled ? Effect.tapError(attempt, credentialRefused) : attempt, (principal) => {
              const denied = authorizationFailure(access, method, principal)
              if (denied === undefined) return runAs(principal)
              authFailed("forbidden")
              return Effect.andThen(auditDenied(principal, method, route.template, access, denied), Effect.fail(denied))
            })
          }
        }
        const declaredLength = headers["content-length"]
        if (declaredLength !== undefined && Number(declaredLength) > settings.maxBodyBytes) {
          program = Effect.fail(tooLarge)
        }
        return Effect.matchCauseEffect(program, {
          onFailure: (cause) =>
            Effect.map(failureResponse(cause, requestId), (response) => {
              if (metrics.enabled) route.series.record(method, response.status, (performance.now() - started) / 1000)
              return HttpServerResponse.setHeader(response, "x-request-id", requestId)
            }),
          onSuccess: (response) => {
            if (metrics.enabled) route.series.record(method, response.status, (performance.now() - started) / 1000)
            return Effect.succeed(HttpServerResponse.setHeader(response, "x-request-id", requestId))
          }
        })
      }) as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>
    }
  }),
  { global: true }
)

