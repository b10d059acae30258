/**
 * Cookie session and device tokens (src/http/api/auth.ts; reference §2.2,
 * §2.6). The middleware has already authenticated and authorized the
 * device-token routes (admin token only); `/auth/session` checks the token
 * in its body, and a failed check counts against the client's rate limit like
 * any other. gateway-api.md: these routes exist "only when gateway auth is
 * enabled", so with `SVC_AUTH=off` the group is switched off ({@link AuthSwitch}:
 * 404 `not_found` "route not found", src/http/middleware.ts).
 */
import { AuthApi } from "./httpApi.ts"
import { Effect, Option } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { AuthService } from "../AuthService.ts"
import { CurrentPrincipal, type Principal } from "../principal.ts"
import { ADMIN_COOKIE, type AuthSessionInfo, KNOWN_SCOPES } from "../schema.ts"
import type { GatewaySettings } from "../../../layers/config.ts"
import { InvalidRequest, Unauthorized } from "../../shared/errors.ts"
import { requestScheme } from "../../../src/http/origin.ts"
import type { HttpGroupSwitch } from "../../../src/http/middleware.ts"
import { clientErrorResponse } from "../../../src/http/respond.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

/** Lifetime of the session cookie: 7 days (reference §2.6). */
const SESSION_COOKIE_MAX_AGE = "7 days"

const isHttps = (request: HttpServerRequest.HttpServerRequest): boolean =>
  requestScheme((request.source as { socket?: { encrypted?: boolean } }).socket?.encrypted, request.headers["x-forwarded-proto"]) === "https"

const cookieOptions = (secure: boolean) => ({ httpOnly: true, sameSite: "strict", path: "/", secure }) as const

/** The admin token's `GET /auth/session` answer: it passes every scope check (there is no wildcard to show). */
const adminSession: AuthSessionInfo = { status: "ok", token_kind: "admin", scopes: [...KNOWN_SCOPES] }

/**
 * `GET /auth/session` for the request's principal (set by the `Authentication`
 * middleware): the admin token, or a device token with its scopes (in the
 * order they were issued), device, role and expiry. A scoped node token never
 * authenticates over HTTP; it and a missing principal are 401.
 */
const sessionOf = (principal: Principal | undefined): Effect.Effect<AuthSessionInfo, Unauthorized> => {
  switch (principal?.kind) {
    case "admin":
      return Effect.succeed(adminSession)
    case "device":
      return Effect.succeed({
        status: "ok",
        token_kind: "device",
        scopes: [...principal.scopes] as AuthSessionInfo["scopes"],
        token_id: principal.tokenId,
        device_id: principal.deviceId,
        role: principal.role,
        expires_at: principal.expiresAt ?? null
      })
    default:
      return Effect.fail(new Unauthorized({ message: "GET /auth/session needs the admin token or a device token" }))
  }
}

/** The auth routes are served only with gateway auth on (gateway-api.md: they exist "only when gateway auth is enabled"). */
export const AuthSwitch: HttpGroupSwitch = { group: "auth", served: (settings: GatewaySettings) => settings.authEnabled }

/** Auth handlers; need {@link AuthService}. */
export const AuthHttp = group(apiOf(AuthApi), "auth", (handlers) => Effect.gen(function*() {
  const auth = yield* AuthService
  return handlers.handleAll({
    session: ({ payload, request }) =>
      Effect.gen(function*() {
        const token = payload.token.trim()
        if (token.length === 0) return yield* new InvalidRequest({ message: "token is required" })
        yield* auth.authenticateAttempt(token, Option.getOrElse(request.remoteAddress, () => "unknown"))
        return HttpServerResponse.empty({ status: 204 }).pipe(
          HttpServerResponse.setCookieUnsafe(ADMIN_COOKIE, token, { ...cookieOptions(isHttps(request)), maxAge: SESSION_COOKIE_MAX_AGE })
        )
      }).pipe(
        // A 429 carries Retry-After, which only the gateway's error response writes.
        Effect.catchTag("TooManyRequests", (e) => Effect.succeed(clientErrorResponse(e)!))
      ),
    sessionInfo: () => Effect.flatMap(CurrentPrincipal, sessionOf),
    logout: ({ request }) =>
      Effect.succeed(
        HttpServerResponse.empty({ status: 204 }).pipe(HttpServerResponse.expireCookieUnsafe(ADMIN_COOKIE, cookieOptions(isHttps(request))))
      ),
    issueDeviceToken: ({ payload }) => auth.issueDeviceToken(payload),
    revokeDeviceToken: ({ payload }) => auth.revokeDeviceToken(payload.token.trim())
  })
}))
