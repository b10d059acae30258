/**
 * Cookie session and device tokens (src/http/api/auth.ts; reference §2.2,
 * §2.6). The middleware has already authenticated and authorized the
 * device-token routes (admin token only); `/auth/session` checks the token
 * in its body, and a failed check counts against the client's rate limit like
 * any other. gateway-api.md: these routes exist "only when gateway auth is
 * enabled", so with `SVC_AUTH=off` they answer 404.
 */
import { Effect, Option } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { AuthService } from "../../services/auth/AuthService.ts"
import { ADMIN_COOKIE } from "../../services/auth/schema.ts"
import { InvalidRequest, NotFound } from "../../services/shared/errors.ts"
import { GatewayApi } from "./api/index.ts"
import { requestScheme } from "./origin.ts"
import { handlers } from "./router.ts"

/** Lifetime of the session cookie: 7 days (reference §2.6). */
const SESSION_COOKIE_MAX_AGE = "7 days"

const isHttps = (request: HttpServerRequest.HttpServerRequest): boolean =>
  requestScheme((request.source as { socket?: { encrypted?: boolean } }).socket?.encrypted, request.headers["x-forwarded-proto"]) === "https"

const cookieOptions = (secure: boolean) => ({ httpOnly: true, sameSite: "strict", path: "/", secure }) as const

const routeNotFound = new NotFound({ message: "route not found" })

/** Auth handlers; need {@link AuthService}. */
export const AuthHttp = handlers(GatewayApi, "auth", Effect.gen(function*() {
  const auth = yield* AuthService
  const enabled = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E | NotFound> =>
    auth.enabled ? effect : Effect.fail(routeNotFound)
  return {
    session: ({ payload, request }) =>
      enabled(Effect.gen(function*() {
        const token = payload.token.trim()
        if (token.length === 0) return yield* new InvalidRequest({ message: "token is required" })
        yield* auth.authenticateAttempt(token, Option.getOrElse(request.remoteAddress, () => "unknown"))
        return HttpServerResponse.empty({ status: 204 }).pipe(
          HttpServerResponse.setCookieUnsafe(ADMIN_COOKIE, token, { ...cookieOptions(isHttps(request)), maxAge: SESSION_COOKIE_MAX_AGE })
        )
      })),
    logout: ({ request }) =>
      enabled(Effect.succeed(
        HttpServerResponse.empty({ status: 204 }).pipe(HttpServerResponse.expireCookieUnsafe(ADMIN_COOKIE, cookieOptions(isHttps(request))))
      )),
    issueDeviceToken: ({ payload }) => enabled(auth.issueDeviceToken(payload)),
    revokeDeviceToken: ({ payload }) => enabled(auth.revokeDeviceToken(payload.token.trim()))
  }
}))
