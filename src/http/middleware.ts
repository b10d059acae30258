/**
 * The gateway's one global HTTP middleware. Per request, in order:
 * 1. `x-request-id`: the caller's (when sane), else `req-<uuid>`; set on every response.
 * 2. Body limit: a declared `content-length` above the limit is refused (413)
 *    before reading; streamed bodies are cut at the same limit.
 * 3. Rate limit on credential routes, per client address (429 + Retry-After).
 * 4. Authentication (gateway-api.md "Authentication"): Bearer header, else the
 *    `svc_admin_token` cookie; public allowlist skips it. 401 comes before 404.
 * 5. Authorization against the route table (services/auth/routeTable.ts):
 *    admin bypasses; device tokens need the route's scope; unknown routes are
 *    denied (403) to device tokens.
 * 6. Every failure is mapped by `respond.ts` (one place).
 */
import { ByteSize, Effect, Layer, Option, type Types } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AuthService } from "../../services/auth/AuthService.ts"
import { CurrentPrincipal, hasScope, type Principal } from "../../services/auth/principal.ts"
import { RateLimiter } from "../../services/auth/RateLimiter.ts"
import { makeRouteMatcher, type RouteRule } from "../../services/auth/routeTable.ts"
import { bearerToken } from "../../services/auth/tokenCrypto.ts"
import { Forbidden, PayloadTooLarge, Unauthorized } from "../../services/shared/errors.ts"
import { GatewayConfig } from "../config.ts"
import { ADMIN_COOKIE } from "../contracts/auth.ts"
import { pathOf } from "./path.ts"
import { failureResponse } from "./respond.ts"

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/

/** Routes whose hits count against the per-address credential rate limit. */
const isRateLimited = (path: string): boolean => path === "/auth/session" || path.startsWith("/auth/device-tokens/")

const missingToken = new Unauthorized({
  message: "Provide a valid token via Authorization: Bearer <token> header or the svc_admin_token cookie"
})
const unmappedRoute = new Forbidden({ message: "route is not scope-authorized for scoped tokens" })
const adminTokenRequired = new Forbidden({ message: "admin token required" })

/**
 * The credential of a request: `Authorization: Bearer <token>` (exactly two
 * parts), else the `svc_admin_token` cookie; `undefined` when neither is usable.
 * Query-string tokens are ignored by design.
 */
export const requestToken = (
  request: HttpServerRequest.HttpServerRequest,
  headers: HttpServerRequest.HttpServerRequest["headers"] = request.headers
): string | undefined => {
  const fromHeader = bearerToken(headers["authorization"])
  if (fromHeader !== undefined) return fromHeader
  if (headers["cookie"] === undefined) return undefined
  const cookie = request.cookies[ADMIN_COOKIE]
  return cookie !== undefined && cookie.length > 0 ? cookie : undefined
}


/** Why `principal` may not use the route of `rule`, or `undefined` when it may. */
const authorizationFailure = (rule: RouteRule | undefined, principal: Principal): Forbidden | undefined => {
  if (principal.kind === "admin") return undefined
  if (rule === undefined) return unmappedRoute
  switch (rule.access.kind) {
    case "admin-token":
      return adminTokenRequired
    case "scope":
      return hasScope(principal, rule.access.scope)
        ? undefined
        : new Forbidden({ message: `insufficient scope: this route requires ${rule.access.scope}` })
    default:
      return undefined
  }
}

/** Installs the middleware for every route of the router (global). */
export const GatewayMiddlewareLive = HttpRouter.middleware(
  Effect.gen(function*() {
    const auth = yield* AuthService
    const limiter = yield* RateLimiter
    const settings = yield* GatewayConfig
    const matchRoute = makeRouteMatcher()
    const maxBody = ByteSize.bytes(settings.maxBodyBytes)
    const tooLarge = new PayloadTooLarge({
      message: `request body exceeds ${settings.maxBodyBytes} bytes`,
      limitBytes: settings.maxBodyBytes
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
        const path = pathOf(request.url)
        const rule = matchRoute(request.method, path)

        let program = bounded
        if (auth.enabled && rule?.access.kind !== "public") {
          const token = requestToken(request, headers)
          program = token === undefined
            ? Effect.fail(missingToken)
            : Effect.flatMap(auth.authenticate(token), (principal) => {
              const denied = authorizationFailure(rule, principal)
              return denied === undefined ? runAs(principal) : Effect.fail(denied)
            })
        }
        if (isRateLimited(path)) {
          const clientAddress = Option.getOrElse(request.remoteAddress, () => "unknown")
          program = Effect.andThen(limiter.hit(clientAddress), program)
        }
        const declaredLength = headers["content-length"]
        if (declaredLength !== undefined && Number(declaredLength) > settings.maxBodyBytes) {
          program = Effect.fail(tooLarge)
        }
        return Effect.matchCauseEffect(program, {
          onFailure: (cause) =>
            Effect.map(failureResponse(cause, requestId), (response) => HttpServerResponse.setHeader(response, "x-request-id", requestId)),
          onSuccess: (response) => Effect.succeed(HttpServerResponse.setHeader(response, "x-request-id", requestId))
        })
      }) as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>
    }
  }),
  { global: true }
)

/** Re-exported so the server layer can depend on one name. */
export type GatewayMiddleware = Layer.Success<typeof GatewayMiddlewareLive>
