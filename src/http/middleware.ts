/**
 * The gateway's one global HTTP middleware, around every route of the
 * router (the served `GatewayApi` endpoints and everything else). Per
 * request, in order:
 * 1. `x-request-id`: the caller's (when sane), else `req-<uuid>`; set on every
 *    response and provided as `CurrentRequestId` (500 bodies name it).
 * 2. Body limit: a declared `content-length` above the limit is refused (413)
 *    before anything else; streamed bodies are cut at the same limit
 *    (`MaxBodySize`).
 * 3. Routes that are not served endpoints of `GatewayApi` (the planned
 *    routes of `PlannedApi`, the groups switched off by a setting, anything
 *    undeclared) are authenticated and authorized here
 *    (src/http/authentication.ts: 401 before 404; deny by default for
 *    device tokens on undeclared routes); a switched-off group's route then
 *    answers 404 `not_found` "route not found", like an unserved one. The
 *    served endpoints are authenticated by their `Authentication`
 *    `HttpApiMiddleware` (same checks, same answers).
 * 4. Every failure is mapped by `respond.ts` (one place).
 * 5. Metrics (docs/operations.md "Metrics"), recorded here and only here:
 *    `http_requests_total` and `http_request_duration_seconds` by the
 *    matched route's declared template (`/*` when none matched, so raw
 *    paths never become labels); `auth_failures_total` by reason is counted
 *    by the authenticator.
 */
import { ByteSize, Effect, type Types } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { GatewayMetrics, type HttpRouteSeries } from "../../services/metrics/GatewayMetrics.ts"
import { NotFound, PayloadTooLarge } from "../../services/shared/errors.ts"
import { GatewayConfig, type GatewaySettings } from "../../layers/config.ts"
import type { RouteAccess } from "./api/access.ts"
import { makeAuthenticator, runAuthenticated } from "./authentication.ts"
import { makeRouteMatcher, type RouteEntry } from "./authorization.ts"
import { pathOf } from "./path.ts"
import { CurrentRequestId, failureResponse } from "./respond.ts"

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/

const routeNotFound = new NotFound({ message: "route not found" })

/** A group of `GatewayApi` that a setting can switch off (e.g. the auth profile routes with `SVC_AUTH_PROFILES=off`). */
export interface HttpGroupSwitch {
  readonly group: string
  readonly served: (settings: GatewaySettings) => boolean
}

/** What the global middleware knows of the routes. */
export interface GlobalRoutes {
  /** Every declared route (served and planned), for authorization, metrics and the audit. */
  readonly routes: ReadonlyArray<RouteEntry>
  /** The groups of `GatewayApi` whose endpoints are served (authenticated by their own middleware). */
  readonly served: ReadonlySet<string>
  /** The groups a setting can switch off: when off, their routes answer 404 after authorization. */
  readonly switches: ReadonlyArray<HttpGroupSwitch>
}

interface MatchedRoute {
  readonly access: RouteAccess | undefined
  readonly template: string
  readonly series: HttpRouteSeries
  /** `true`: an endpoint served through `HttpApiBuilder` (it authenticates itself). */
  readonly served: boolean
  readonly switchedOff: boolean
}

/** Installs the middleware for every route of the router (global). */
export const gatewayMiddleware = ({ routes, served, switches }: GlobalRoutes) => HttpRouter.middleware(
  Effect.gen(function*() {
    const settings = yield* GatewayConfig
    const switchedOff = new Set(switches.filter((s) => !s.served(settings)).map((s) => s.group))
    const metrics = yield* GatewayMetrics
    const authenticate = yield* makeAuthenticator
    // One lookup per request gives the route's access rule, template and metrics series (built now, once per route).
    const matchRoute = makeRouteMatcher(routes, (entry): MatchedRoute => ({
      access: entry.access,
      template: entry.path,
      series: metrics.httpRoute(entry.path),
      served: served.has(entry.group) && !switchedOff.has(entry.group),
      switchedOff: switchedOff.has(entry.group)
    }))
    const unmatched: MatchedRoute = { access: undefined, template: "/*", series: metrics.httpRoute("/*"), served: false, switchedOff: false }
    const maxBody = ByteSize.bytes(settings.maxBodyBytes)
    const tooLarge = Effect.fail(new PayloadTooLarge({ message: `request body exceeds ${settings.maxBodyBytes} bytes` }))
    const notServed = Effect.fail(routeNotFound)
    // SVC_ROLE=worker serves no client (docs/scaling.md "Roles"): every route but /healthz answers 404.
    const workerOnly = settings.role === "worker"
    const notOnWorker = Effect.fail(
      new NotFound({ message: "this instance runs background work only (SVC_ROLE=worker): it serves GET /healthz only" })
    )

    // The router types a global middleware as one that leaves errors "unhandled";
    // this one deliberately handles every failure (it is the error mapping), hence the cast.
    return (httpEffect) => {
      // Built once per wrapped effect; per request only what depends on the request is allocated.
      const bounded: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown> = Effect.provideService(
        httpEffect,
        HttpIncomingMessage.MaxBodySize,
        maxBody
      )
      return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        // Read the headers once (some adapters build the object on every access).
        const headers = request.headers
        const incomingId = headers["x-request-id"]
        const requestId = incomingId !== undefined && REQUEST_ID.test(incomingId) ? incomingId : `req-${crypto.randomUUID()}`
        const method = request.method
        const started = metrics.enabled ? performance.now() : 0
        const route = matchRoute(method, pathOf(request.url)) ?? unmatched

        const declaredLength = headers["content-length"]
        const program: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown> =
          declaredLength !== undefined && Number(declaredLength) > settings.maxBodyBytes
            ? tooLarge
            : workerOnly && route.template !== "/healthz"
            ? notOnWorker
            : route.served
            ? bounded
            : runAuthenticated(authenticate(request, headers, route.access, route.template), route.switchedOff ? notServed : bounded)
        return Effect.matchCauseEffect(Effect.provideService(program, CurrentRequestId, requestId), {
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
