/**
 * Auth routes (gateway-api.md "Public routes", "Device tokens"; reference §2.2, §2.6):
 * `POST /auth/session`, `POST /auth/logout`, `POST /auth/device-tokens/issue|revoke`.
 * The middleware has already authenticated and authorized the device-token
 * routes (admin token only); `/auth/session` checks the token in its body,
 * and a failed check counts against the client's rate limit like any other.
 */
import { Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AuthService } from "../../../services/auth/AuthService.ts"
import { InvalidRequest } from "../../../services/shared/errors.ts"
import { ADMIN_COOKIE, AuthSessionRequest, DeviceTokenIssueRequest, DeviceTokenRevokeRequest } from "../../contracts/auth.ts"
import { makeDecoder } from "../../contracts/decode.ts"
import { decodeJsonBody } from "../body.ts"
import { json } from "../respond.ts"

const decodeSession = makeDecoder(AuthSessionRequest)
const decodeIssue = makeDecoder(DeviceTokenIssueRequest)
const decodeRevoke = makeDecoder(DeviceTokenRevokeRequest)

/** Lifetime of the session cookie: 7 days (reference §2.6). */
const SESSION_COOKIE_MAX_AGE = "7 days"

/** True when the request arrived over TLS (directly, or as told by `x-forwarded-proto`). */
const isHttps = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const source = request.source as { socket?: { encrypted?: boolean } }
  return source.socket?.encrypted === true || request.headers["x-forwarded-proto"] === "https"
}

const cookieOptions = (secure: boolean) => ({ httpOnly: true, sameSite: "strict", path: "/", secure }) as const

/** Registers the auth routes. */
export const AuthRoutes = Layer.unwrap(Effect.gen(function*() {
  const auth = yield* AuthService
  // gateway-api.md: these routes exist "only when gateway auth is enabled".
  if (!auth.enabled) return Layer.empty

  const session = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { token } = yield* decodeJsonBody(decodeSession)
    const trimmed = token.trim()
    if (trimmed.length === 0) return yield* new InvalidRequest({ message: "token is required" })
    yield* auth.authenticateAttempt(trimmed, Option.getOrElse(request.remoteAddress, () => "unknown"))
    return HttpServerResponse.empty({ status: 204 }).pipe(
      HttpServerResponse.setCookieUnsafe(ADMIN_COOKIE, trimmed, {
        ...cookieOptions(isHttps(request)),
        maxAge: SESSION_COOKIE_MAX_AGE
      })
    )
  })

  const logout = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    return HttpServerResponse.empty({ status: 204 }).pipe(
      HttpServerResponse.expireCookieUnsafe(ADMIN_COOKIE, cookieOptions(isHttps(request)))
    )
  })

  const issue = Effect.gen(function*() {
    const request = yield* decodeJsonBody(decodeIssue)
    return json(yield* auth.issueDeviceToken(request), 201)
  })

  const revoke = Effect.gen(function*() {
    const { token } = yield* decodeJsonBody(decodeRevoke)
    return json(yield* auth.revokeDeviceToken(token.trim()))
  })

  return Layer.mergeAll(
    HttpRouter.add("POST", "/auth/session", session),
    HttpRouter.add("POST", "/auth/logout", logout),
    HttpRouter.add("POST", "/auth/device-tokens/issue", issue),
    HttpRouter.add("POST", "/auth/device-tokens/revoke", revoke)
  )
}))
