/** The WebSocket URL and the upgrade credentials (header, cookie or subprotocol) of a connection. */
import { WS_AUTH_SUBPROTOCOL_PREFIX, WS_SUBPROTOCOL } from "../../services/ws-sessions/schema.ts"
import { ADMIN_COOKIE as ADMIN_COOKIE_NAME } from "../../services/auth/schema.ts"
import { GatewayClientError } from "./errors.ts"
import { base64UrlEncode, utf8Bytes } from "./encoding.ts"
import type { GatewayCredentials } from "./types.ts"

// ---------------------------------------------------------------------------
// URL and credentials
// ---------------------------------------------------------------------------

/**
 * The WebSocket URL for a gateway address: http → ws, https → wss, and `/ws`
 * appended to the path unless it already ends with `/ws`. Query strings are
 * kept; fragments dropped.
 *
 * @throws GatewayClientError `invalid_options` for an unparsable URL or another scheme.
 */
export const toWebSocketUrl = (url: string): URL => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new GatewayClientError("invalid_options", "url is not a valid URL")
  }
  const scheme = { "http:": "ws:", "https:": "wss:", "ws:": "ws:", "wss:": "wss:" }[parsed.protocol]
  if (scheme === undefined) {
    throw new GatewayClientError("invalid_options", `url must use http, https, ws or wss (got ${parsed.protocol})`)
  }
  const out = new URL(parsed.href.replace(/^[a-z]+:/i, scheme))
  out.hash = ""
  const path = out.pathname.replace(/\/+$/, "")
  out.pathname = /\/ws$/.test(path) ? path : `${path}/ws`
  return out
}

/** The http(s) origin of a ws(s) URL (sent as `Origin` with cookie credentials). */
const httpOriginOf = (wsUrl: URL): string =>
  new URL(wsUrl.href.replace(/^ws/i, "http")).origin

// Visible ASCII without separators that break a header or a cookie pair.
const HEADER_SAFE = /^[\x21-\x7e]+$/
const COOKIE_SAFE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]+$/

/** Subprotocols, headers and `Origin` carrying the credential of one connection. */
export interface UpgradeParams {
  readonly protocols: ReadonlyArray<string>
  readonly headers: Readonly<Record<string, string>>
  readonly origin: string | undefined
}

/** The upgrade of `session` credentials: the browser adds its own session cookie; the client sends no token. */
export const SESSION_UPGRADE: UpgradeParams = { protocols: [WS_SUBPROTOCOL], headers: {}, origin: undefined }

/** Builds the upgrade parameters for `credentials`; rejects tokens unsafe in a header or cookie (never echoing them). */
export const upgradeParams = (wsUrl: URL, token: string, credentials: GatewayCredentials): UpgradeParams => {
  if (token === "") throw new GatewayClientError("invalid_options", "token must not be empty")
  switch (credentials) {
    case "bearer":
      if (!HEADER_SAFE.test(token)) {
        throw new GatewayClientError("invalid_options", "token contains characters not allowed in a header")
      }
      return { protocols: [], headers: { Authorization: `Bearer ${token}` }, origin: undefined }
    case "cookie":
      if (!COOKIE_SAFE.test(token)) {
        throw new GatewayClientError("invalid_options", "token contains characters not allowed in a cookie")
      }
      return { protocols: [], headers: { Cookie: `${ADMIN_COOKIE_NAME}=${token}` }, origin: httpOriginOf(wsUrl) }
    case "subprotocol":
      return {
        protocols: [WS_SUBPROTOCOL, WS_AUTH_SUBPROTOCOL_PREFIX + base64UrlEncode(utf8Bytes(token))],
        headers: {},
        origin: undefined
      }
    case "session":
      return SESSION_UPGRADE
    default:
      throw new GatewayClientError("invalid_options", `unknown credentials transport ${JSON.stringify(credentials)}`)
  }
}

