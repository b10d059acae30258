/**
 * Credentials of a WebSocket upgrade (gateway-api.md "Authentication"; reference §2.8),
 * in order: `Authorization: Bearer`, the `svc_admin_token` cookie (same-origin
 * upgrades only), the `svc-auth.<base64url(token)>` subprotocol. And the
 * subprotocol choice: `svc-v1` when offered, never an `svc-auth.*` entry.
 */
import { Cookies } from "effect/http"
import type { IncomingMessage } from "node:http"
import { bearerToken } from "../http/credentials.ts"
import { WS_AUTH_SUBPROTOCOL_PREFIX, WS_SUBPROTOCOL } from "../../services/ws-sessions/schema.ts"

import { ADMIN_COOKIE } from "../../services/auth/schema.ts"
import { isSameOrigin, requestScheme } from "../http/origin.ts"

const headerValue = (value: string | Array<string> | undefined): string | undefined => (Array.isArray(value) ? value[0] : value)

/** The offered subprotocols, trimmed, in order. */
export const offeredProtocols = (header: string | undefined): Array<string> =>
  header === undefined ? [] : header.split(",").map((p) => p.trim()).filter((p) => p.length > 0)

/** Where a token came from. */
export type CredentialSource = "bearer" | "cookie" | "subprotocol"

/** The token of an upgrade request and its source, or `undefined` when none is usable. */
export const upgradeCredential = (
  request: IncomingMessage
): { readonly token: string; readonly source: CredentialSource } | undefined => {
  const fromHeader = bearerToken(request.headers.authorization)
  if (fromHeader !== undefined) return { token: fromHeader, source: "bearer" }
  const cookie = request.headers.cookie === undefined ? undefined : Cookies.parseHeader(request.headers.cookie)[ADMIN_COOKIE]
  const scheme = requestScheme((request.socket as { encrypted?: boolean }).encrypted, headerValue(request.headers["x-forwarded-proto"]))
  if (cookie !== undefined && cookie.length > 0 && isSameOrigin(request.headers.origin, request.headers.host, scheme)) {
    return { token: cookie, source: "cookie" }
  }
  for (const protocol of offeredProtocols(request.headers["sec-websocket-protocol"])) {
    if (!protocol.startsWith(WS_AUTH_SUBPROTOCOL_PREFIX)) continue
    const encoded = protocol.slice(WS_AUTH_SUBPROTOCOL_PREFIX.length)
    if (!/^[A-Za-z0-9_-]+$/.test(encoded)) continue
    const token = Buffer.from(encoded, "base64url").toString("utf8")
    if (token.length > 0) return { token, source: "subprotocol" }
  }
  return undefined
}

/**
 * Subprotocol negotiation: `svc-v1` when offered; else the first offered
 * protocol that is not `svc-auth.*`; else none (`false`).
 */
export const selectProtocol = (protocols: ReadonlySet<string>): string | false => {
  if (protocols.has(WS_SUBPROTOCOL)) return WS_SUBPROTOCOL
  for (const p of protocols) if (!p.startsWith(WS_AUTH_SUBPROTOCOL_PREFIX)) return p
  return false
}
