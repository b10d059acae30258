/** Errors and close-code classification of the client SDK. */
import { WsCloseCode, type WsError } from "../../services/ws-sessions/schema.ts"

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/**
 * A request answered with `ok:false`: `code`, `message` and `details` are the gateway's
 * `error` fields (e.g. `invalid_request`, `forbidden`, `unsupported_request`, `not_found`).
 */
export class GatewayRequestError extends Error {
  override readonly name = "GatewayRequestError"
  readonly code: string
  readonly details: unknown
  /** The request's `type`. */
  readonly requestType: string
  readonly requestId: string

  constructor(error: WsError, requestType: string, requestId: string) {
    super(error.message)
    this.code = error.code
    this.details = error.details
    this.requestType = requestType
    this.requestId = requestId
  }
}

/**
 * Codes of {@link GatewayClientError}:
 * - `timeout`: no response within the request timeout;
 * - `connection_closed`: the socket closed (or `close()` was called) before the response, or during the handshake;
 * - `not_connected`: a request while no handshake-complete connection exists;
 * - `handshake_timeout`: the handshake did not complete within `handshakeTimeoutMs`;
 * - `upgrade_rejected`: the gateway answered the upgrade with an HTTP status instead of 101;
 * - `handshake_refused`: the gateway answered `connect.init` or `connect.proof` with `ok:false`
 *   (the {@link GatewayRequestError} is the `cause`);
 * - `protocol_error`: the gateway broke the protocol (bad JSON, wrong subprotocol, malformed handshake result);
 * - `reconnect_exhausted`: `maxAttempts` consecutive reconnect attempts failed;
 * - `listener_error`: a listener passed to `on()` threw (reported on `error`);
 * - `invalid_options`: bad client options (URL, token characters), or no credential at all (no `token` and no
 *   stored scoped token);
 * - `token_store_error`: node mode: the scoped-token store failed to load, save or clear (reported on `error`).
 */
export type GatewayClientErrorCode =
  | "timeout"
  | "connection_closed"
  | "not_connected"
  | "handshake_timeout"
  | "upgrade_rejected"
  | "handshake_refused"
  | "protocol_error"
  | "reconnect_exhausted"
  | "listener_error"
  | "invalid_options"
  | "token_store_error"

/**
 * A failure of the client itself rather than a gateway answer. `closeCode` and
 * `closeReason` are set for `connection_closed`, `httpStatus` for
 * `upgrade_rejected`. `fatal` means retrying cannot help (fatal close code,
 * HTTP 401/403, `handshake_refused`): the client does not reconnect after it.
 */
export class GatewayClientError extends Error {
  override readonly name = "GatewayClientError"
  readonly code: GatewayClientErrorCode
  readonly fatal: boolean
  readonly closeCode: number | undefined
  readonly closeReason: string | undefined
  readonly httpStatus: number | undefined

  constructor(
    code: GatewayClientErrorCode,
    message: string,
    options: {
      readonly fatal?: boolean
      readonly closeCode?: number
      readonly closeReason?: string
      readonly httpStatus?: number
      readonly cause?: unknown
    } = {}
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.fatal = options.fatal ?? false
    this.closeCode = options.closeCode
    this.closeReason = options.closeReason
    this.httpStatus = options.httpStatus
  }
}

/**
 * Close codes after which the client never reconnects: 4001 unauthorized (also `pairing revoked`,
 * `pairing denied`), 4002 handshake timeout, 4003 protocol violation, 4005 protocol_rev mismatch,
 * 4006 device_id mismatch, 4007 invalid proof, 4008 scoped token mismatch. (In node mode a refused
 * scoped token — 4001, 4008 — is forgotten and the client reconnects with its bootstrap token instead.)
 */
export const FATAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  WsCloseCode.unauthorized,
  WsCloseCode.handshakeTimeout,
  WsCloseCode.protocolViolation,
  WsCloseCode.protocolRevMismatch,
  WsCloseCode.deviceIdMismatch,
  WsCloseCode.invalidProof,
  WsCloseCode.scopedTokenMismatch
])

/** Close codes by which the gateway refuses a node's scoped token: 4001 (revoked, unknown) and 4008 (another device). */
export const SCOPED_TOKEN_REFUSED_CLOSE_CODES: ReadonlySet<number> = new Set([
  WsCloseCode.unauthorized,
  WsCloseCode.scopedTokenMismatch
])

/** Close codes reported on `error` before reconnecting (1013 slow consumer, 1009 too big). */
export const REPORTED_CLOSE_CODES: ReadonlySet<number> = new Set([WsCloseCode.slowConsumer, WsCloseCode.messageTooBig])

/** Name of the admin cookie on the upgrade (the contract's `ADMIN_COOKIE`). */
export { ADMIN_COOKIE as ADMIN_COOKIE_NAME } from "../../services/auth/schema.ts"

