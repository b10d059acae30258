/**
 * HTTP credentials (gateway-api.md "Authentication"; reference §2.4), shared
 * by the HTTP middleware and the `/ws` upgrade.
 */
import type { HttpServerRequest } from "effect/http"
import { ADMIN_COOKIE } from "../../services/auth/schema.ts"

/**
 * The token of an `Authorization: Bearer <token>` header: exactly the word
 * `Bearer`, one space and a non-empty token without spaces; else `undefined`.
 */
export const bearerToken = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const space = header.indexOf(" ")
  if (space <= 0 || header.slice(0, space) !== "Bearer") return undefined
  const token = header.slice(space + 1)
  return token.length > 0 && !token.includes(" ") ? token : undefined
}

/** A request's credential and where it came from. */
export interface RequestCredential {
  readonly token: string
  readonly source: "bearer" | "cookie"
}

/**
 * The credential of a request: `Authorization: Bearer <token>` (exactly two
 * parts), else the `svc_admin_token` cookie; `undefined` when neither is usable.
 * Query-string tokens are ignored by design.
 */
export const requestCredential = (
  request: HttpServerRequest.HttpServerRequest,
  headers: HttpServerRequest.HttpServerRequest["headers"] = request.headers
): RequestCredential | undefined => {
  const fromHeader = bearerToken(headers["authorization"])
  if (fromHeader !== undefined) return { token: fromHeader, source: "bearer" }
  if (headers["cookie"] === undefined) return undefined
  const cookie = request.cookies[ADMIN_COOKIE]
  return cookie !== undefined && cookie.length > 0 ? { token: cookie, source: "cookie" } : undefined
}
