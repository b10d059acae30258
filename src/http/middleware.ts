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
import { failureResponse } from "./respond.ts"

/** Name of the admin session cookie (gateway-api.md "Authentication"). */
export const ADMIN_COOKIE = "svc_admin_token"

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

/** Path without the query string. */
const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

const authorize = (rule: RouteRule | undefined, principal: Principal): Effect.Effect<Principal, Forbidden> => {
  if (principal.kind === "admin") return Effect.succeed(principal)
  if (rule === undefined) return Effect.fail(unmappedRoute)
  switch (rule.access.kind) {
    case "admin-token":
      return Effect.fail(adminTokenRequired)
    case "scope":
      return hasScope(principal, rule.access.scope)
        ? Effect.succeed(principal)
        : Effect.fail(new Forbidden({ message: `insufficient scope: this route requires ${rule.access.scope}` }))
    default:
      return Effect.succeed(principal)
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
    return (httpEffect) =>
      (Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        // `request.headers` builds a new object on every access: read it once.
        const headers = request.headers
        const incomingId = headers["x-request-id"]
        const requestId = incomingId !== undefined && REQUEST_ID.test(incomingId) ? incomingId : `req-${crypto.randomUUID()}`
        const path = pathOf(request.url)
        const rule = matchRoute(request.method, path)

        let program: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown> = httpEffect
        if (auth.enabled && rule?.access.kind !== "public") {
          const token = requestToken(request, headers)
          const guarded = program
          program = token === undefined
            ? Effect.fail(missingToken)
            : Effect.flatMap(
              Effect.flatMap(auth.authenticate(token), (principal) => authorize(rule, principal)),
              (principal) => Effect.provideService(guarded, CurrentPrincipal, principal)
            )
        }
        if (isRateLimited(path)) {
          const clientAddress = Option.getOrElse(request.remoteAddress, () => "unknown")
          program = Effect.andThen(limiter.hit(clientAddress), program)
        }
        const declaredLength = headers["content-length"]
        if (declaredLength !== undefined && Number(declaredLength) > settings.maxBodyBytes) {
          program = Effect.fail(tooLarge)
        }
        return program.pipe(
          Effect.provideService(HttpIncomingMessage.MaxBodySize, maxBody),
          Effect.catchCause((cause) => failureResponse(cause, requestId)),
          Effect.map((response) => HttpServerResponse.setHeader(response, "x-request-id", requestId))
        )
      }) as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>)
  }),
  { global: true }
)

/** Re-exported so the server layer can depend on one name. */
export type GatewayMiddleware = Layer.Success<typeof GatewayMiddlewareLive>
