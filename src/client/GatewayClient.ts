/**
 * WebSocket client of the gateway (gateway-api.md "WebSocket API",
 * "Authentication", "Events"; reference §2.8, §5.1–5.3), for operator
 * programs (role `client`) and nodes (role `node`).
 *
 * Plain TypeScript over `ws`: Promises for requests, listeners and an async
 * iterator for events. One instance owns at most one socket at a time and
 * reconnects (exponential backoff, full jitter) when an established
 * connection drops for a non-fatal reason.
 */
import { randomUUID } from "node:crypto"
import WebSocket, { type RawData } from "ws"
import {
  type CapabilityDescriptor,
  GATEWAY_PROTOCOL_REV,
  type PresenceEntry,
  WS_AUTH_SUBPROTOCOL_PREFIX,
  WS_SUBPROTOCOL,
  WsCloseCode,
  type WsCapabilityReadyRequest,
  type WsConnectInitResult,
  type WsConnectProofResult,
  type WsError,
  type WsEventEnvelope,
  type WsPeerRole,
  type WsPresenceBeaconRequest,
  type WsRequestEnvelope,
  type WsResponseEnvelope
} from "../contracts/ws.ts"
import { type DeviceIdentity, signProof } from "./identity.ts"

// ---------------------------------------------------------------------------
// Options and public shapes
// ---------------------------------------------------------------------------

/**
 * How the token travels on the WebSocket upgrade (one per connection):
 * - `bearer`: `Authorization: Bearer <token>` header;
 * - `cookie`: `Cookie: svc_admin_token=<token>` plus `Origin` set to the URL's http(s) origin
 *   (the gateway accepts the cookie on same-origin upgrades only);
 * - `subprotocol`: `Sec-WebSocket-Protocol: svc-v1, svc-auth.<base64url(token)>`; the gateway must answer `svc-v1`.
 */
export type GatewayCredentials = "bearer" | "cookie" | "subprotocol"

/** Reconnect policy. Delays in milliseconds. */
export interface ReconnectOptions {
  /**
   * Backoff cap of the first attempt (default 500 ms). Attempt n waits
   * `random() * min(maxDelayMs, initialDelayMs * 2^(n-1))` (full jitter).
   */
  readonly initialDelayMs?: number
  /** Upper bound of the backoff cap (default 30 000 ms). */
  readonly maxDelayMs?: number
  /** Consecutive failed attempts before giving up (default unlimited). */
  readonly maxAttempts?: number
}

/** Optional descriptive fields of `connect.init.device`. */
export interface DeviceInfo {
  readonly label?: string
  readonly platform?: string
  readonly version?: string
  readonly mode?: string
}

/** Options of {@link GatewayClient}. */
export interface GatewayClientOptions {
  /**
   * Gateway address: an http(s) or ws(s) base URL (`http://127.0.0.1:8788`, `/ws` is appended to its path)
   * or the full WebSocket URL ending in `/ws`. http becomes ws and https becomes wss.
   */
  readonly url: string
  /** Admin token or device token. Never logged nor put in error messages. */
  readonly token: string
  /** Credential transport (default `bearer`). */
  readonly credentials?: GatewayCredentials
  /** `client` (operator program) or `node` (capability provider). */
  readonly role: WsPeerRole
  /** The device's key pair (see `loadOrCreateDeviceIdentity`). */
  readonly identity: DeviceIdentity
  /** Capabilities advertised in `connect.init` (default none). */
  readonly capabilities?: ReadonlyArray<CapabilityDescriptor>
  /** Descriptive device fields sent in `connect.init`. */
  readonly device?: DeviceInfo
  /** Default timeout of {@link GatewayClient.request}, in milliseconds (default 30 000). */
  readonly requestTimeoutMs?: number
  /** Time allowed from opening the socket to the `connect.proof` result, in milliseconds (default 15 000). */
  readonly handshakeTimeoutMs?: number
  /**
   * Reconnect policy after an established connection drops for a non-fatal reason
   * (default: enabled, with the defaults of {@link ReconnectOptions}); `false` disables it.
   */
  readonly reconnect?: false | ReconnectOptions
}

/** Result of the handshake (`connect.proof` result): the gateway's client id, the device id and the role. */
export type GatewaySession = WsConnectProofResult

/** Payload of the `connected` listener: the session, and whether it replaces a dropped connection. */
export interface ConnectedInfo extends GatewaySession {
  readonly reconnected: boolean
}

/** Payload of the `disconnected` listener, after an established connection closed. */
export interface DisconnectedInfo {
  /** WebSocket close code (1006 when the socket dropped without a close frame). */
  readonly code: number
  readonly reason: string
  /** A close code after which the client never reconnects (see {@link FATAL_CLOSE_CODES}). */
  readonly fatal: boolean
  /** Whether a reconnect is scheduled. */
  readonly willReconnect: boolean
}

/** Payload of the `reconnecting` listener: the 1-based attempt number and its delay in milliseconds. */
export interface ReconnectingInfo {
  readonly attempt: number
  readonly delayMs: number
}

/** Listener signatures of {@link GatewayClient.on}. */
export interface GatewayClientEventMap {
  /** An event envelope from the gateway. */
  readonly event: (event: WsEventEnvelope) => void
  /** A handshake completed (first connection or reconnection). */
  readonly connected: (info: ConnectedInfo) => void
  /** An established connection closed (also after {@link GatewayClient.close}). */
  readonly disconnected: (info: DisconnectedInfo) => void
  /** A reconnect attempt is scheduled. */
  readonly reconnecting: (info: ReconnectingInfo) => void
  /**
   * A reported problem that is not the answer of a request: a failed reconnect attempt, close code
   * 1013 (slow consumer) or 1009 (message too big), an unparsable message, a listener that threw.
   */
  readonly error: (error: Error) => void
}

/** Lifecycle state of a {@link GatewayClient}. */
export type GatewayClientState = "idle" | "connecting" | "connected" | "reconnecting" | "closed"

/** Per-request options. */
export interface RequestOptions {
  /** Overrides the client's `requestTimeoutMs` for this request, in milliseconds. */
  readonly timeoutMs?: number
}

/**
 * Known client-to-gateway request types: payload and result. Other types go
 * through the generic overload of {@link GatewayClient.request}.
 */
export interface GatewayRequestMap {
  readonly ping: { readonly payload: Record<string, never> | undefined; readonly result: void }
  readonly "presence.beacon": {
    readonly payload: WsPresenceBeaconRequest | undefined
    readonly result: { readonly entry: PresenceEntry }
  }
  readonly "capability.ready": { readonly payload: WsCapabilityReadyRequest; readonly result: void }
}

/** `task.execute` payload (gateway → node; reference §5.3). */
export interface TaskExecutePayload {
  readonly run_id: string
  readonly step_id: string
  readonly attempt_id: string
  /** The ActionPrimitive to perform. */
  readonly action: unknown
  readonly [key: string]: unknown
}

/** `approval.request` payload (gateway → client; reference §3.4). */
export interface ApprovalRequestPayload {
  readonly approval_id: string | number
  readonly plan_id: string
  readonly step_index: number
  readonly prompt: string
  readonly context?: unknown
  readonly expires_at?: string
  readonly [key: string]: unknown
}

/**
 * Known gateway-initiated request types: payload and the result a handler
 * returns. Other types use `unknown`.
 */
export interface GatewayInitiatedRequestMap {
  readonly ping: { readonly payload: unknown; readonly result: void }
  readonly "task.execute": {
    readonly payload: TaskExecutePayload
    readonly result: { readonly result?: unknown; readonly evidence?: unknown }
  }
  readonly "approval.request": {
    readonly payload: ApprovalRequestPayload
    readonly result: { readonly approved: boolean; readonly reason?: string }
  }
}

type KnownRequest = keyof GatewayRequestMap
type KnownInitiated = keyof GatewayInitiatedRequestMap

/** Arguments after `type` of {@link GatewayClient.request}: a typed payload for known types. */
export type RequestArgs<K extends string> = K extends KnownRequest
  ? undefined extends GatewayRequestMap[K]["payload"]
    ? [payload?: GatewayRequestMap[K]["payload"], options?: RequestOptions]
    : [payload: GatewayRequestMap[K]["payload"], options?: RequestOptions]
  : [payload?: unknown, options?: RequestOptions]

/** Result of {@link GatewayClient.request}: the known result for known types, else `T`. */
export type RequestResult<K extends string, T> = K extends KnownRequest ? GatewayRequestMap[K]["result"] : T

/** Handler of a gateway-initiated request; its return value (awaited) becomes `result`, a throw becomes `ok:false`. */
export type GatewayRequestHandler<K extends string> = (
  payload: K extends KnownInitiated ? GatewayInitiatedRequestMap[K]["payload"] : unknown,
  envelope: WsRequestEnvelope
) => K extends KnownInitiated
  ? GatewayInitiatedRequestMap[K]["result"] | Promise<GatewayInitiatedRequestMap[K]["result"]>
  : unknown

/**
 * Which events {@link GatewayClient.events} yields: a type (`"presence.upserted"`), a prefix
 * pattern (`"work.*"`), `"*"`, a list of those, or a predicate.
 */
export type EventFilter = string | ReadonlyArray<string> | ((event: WsEventEnvelope) => boolean)

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
 * - `invalid_options`: bad client options (URL, token characters).
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
 * Close codes after which the client never reconnects: 4001 unauthorized, 4002 handshake timeout,
 * 4003 protocol violation, 4005 protocol_rev mismatch, 4006 device_id mismatch, 4007 invalid proof.
 */
export const FATAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  WsCloseCode.unauthorized,
  WsCloseCode.handshakeTimeout,
  WsCloseCode.protocolViolation,
  WsCloseCode.protocolRevMismatch,
  WsCloseCode.deviceIdMismatch,
  WsCloseCode.invalidProof
])

const REPORTED_CLOSE_CODES: ReadonlySet<number> = new Set([WsCloseCode.slowConsumer, WsCloseCode.messageTooBig])

/** Name of the admin cookie on the upgrade (same as the HTTP API's `ADMIN_COOKIE`). */
export const ADMIN_COOKIE_NAME = "svc_admin_token"

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

/** The http(s) origin of a ws(s) URL, sent as `Origin` with the cookie transport. */
const httpOriginOf = (wsUrl: URL): string =>
  new URL(wsUrl.href.replace(/^ws/i, "http")).origin

// Visible ASCII without separators that break a header or a cookie pair.
const HEADER_SAFE = /^[\x21-\x7e]+$/
const COOKIE_SAFE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]+$/

interface UpgradeParams {
  readonly protocols: Array<string>
  readonly options: WebSocket.ClientOptions
}

const upgradeParams = (wsUrl: URL, token: string, credentials: GatewayCredentials): UpgradeParams => {
  if (token === "") throw new GatewayClientError("invalid_options", "token must not be empty")
  switch (credentials) {
    case "bearer":
      if (!HEADER_SAFE.test(token)) {
        throw new GatewayClientError("invalid_options", "token contains characters not allowed in a header")
      }
      return { protocols: [], options: { headers: { Authorization: `Bearer ${token}` } } }
    case "cookie":
      if (!COOKIE_SAFE.test(token)) {
        throw new GatewayClientError("invalid_options", "token contains characters not allowed in a cookie")
      }
      return {
        protocols: [],
        options: { headers: { Cookie: `${ADMIN_COOKIE_NAME}=${token}` }, origin: httpOriginOf(wsUrl) }
      }
    case "subprotocol":
      return {
        protocols: [WS_SUBPROTOCOL, WS_AUTH_SUBPROTOCOL_PREFIX + Buffer.from(token, "utf8").toString("base64url")],
        options: {}
      }
    default:
      throw new GatewayClientError("invalid_options", `unknown credentials transport ${JSON.stringify(credentials)}`)
  }
}

// ---------------------------------------------------------------------------
// Internals
// ---------------------------------------------------------------------------

interface Pending {
  readonly type: string
  readonly resolve: (value: unknown) => void
  readonly reject: (error: Error) => void
  timer: NodeJS.Timeout | undefined
}

/** One socket and the requests sent on it. */
interface Link {
  readonly socket: WebSocket
  readonly pending: Map<string, Pending>
  closed: boolean
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const rawToString = (data: RawData): string =>
  Buffer.isBuffer(data)
    ? data.toString("utf8")
    : Array.isArray(data)
      ? Buffer.concat(data).toString("utf8")
      : Buffer.from(data).toString("utf8")

const describeClose = (code: number, reason: string): string => (reason === "" ? `code ${code}` : `code ${code} ${reason}`)

/** `ok:false` error of a handler that threw: its string `code` (else `handler_error`), message and `details`. */
const handlerError = (error: unknown): WsError => {
  const record = isRecord(error) ? error : {}
  const code = typeof record["code"] === "string" && record["code"] !== "" ? record["code"] : "handler_error"
  const message =
    error instanceof Error ? error.message : typeof record["message"] === "string" ? record["message"] : String(error)
  return "details" in record && record["details"] !== undefined
    ? { code, message, details: record["details"] }
    : { code, message }
}

/** A handshake step answered `ok:false` is a deliberate refusal: fatal, with the gateway's error as `cause`. */
const refused = (error: unknown): never => {
  if (error instanceof GatewayRequestError) {
    throw new GatewayClientError(
      "handshake_refused",
      `gateway refused ${error.requestType}: ${error.code}: ${error.message}`,
      { fatal: true, cause: error }
    )
  }
  throw error
}

const matcher = (filter: EventFilter | undefined): ((event: WsEventEnvelope) => boolean) => {
  if (filter === undefined) return () => true
  if (typeof filter === "function") return filter
  const patterns = typeof filter === "string" ? [filter] : filter
  const matchOne = (pattern: string) =>
    pattern === "*"
      ? () => true
      : pattern.endsWith(".*")
        ? (type: string) => type.startsWith(pattern.slice(0, -1))
        : (type: string) => type === pattern
  const tests = patterns.map(matchOne)
  return (event) => tests.some((test) => test(event.type))
}

// ---------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------

/**
 * A connection to the gateway's WebSocket API. Create it, register handlers
 * and listeners, then `await connect()`.
 *
 * ```ts
 * const client = new GatewayClient({ url: "http://127.0.0.1:8788", token, role: "client", identity })
 * client.on("event", (e) => console.log(e.type))
 * await client.connect()
 * await client.request("ping")
 * await client.close()
 * ```
 */
export class GatewayClient {
  readonly #options: GatewayClientOptions
  readonly #url: URL
  readonly #upgrade: UpgradeParams
  readonly #requestTimeoutMs: number
  readonly #handshakeTimeoutMs: number
  readonly #reconnect: Required<ReconnectOptions> | undefined

  #state: GatewayClientState = "idle"
  #link: Link | undefined
  #session: GatewaySession | undefined
  #connecting: Promise<GatewaySession> | undefined
  #reconnectTimer: NodeJS.Timeout | undefined
  #reconnectAttempt = 0
  #everConnected = false
  #reconnectWaiters: Array<{ readonly resolve: (session: GatewaySession) => void; readonly reject: (error: Error) => void }> =
    []

  readonly #listeners: { [K in keyof GatewayClientEventMap]: Set<GatewayClientEventMap[K]> } = {
    event: new Set(),
    connected: new Set(),
    disconnected: new Set(),
    reconnecting: new Set(),
    error: new Set()
  }
  readonly #handlers = new Map<string, (payload: unknown, envelope: WsRequestEnvelope) => unknown>()
  readonly #streams = new Set<{ readonly end: () => void }>()

  /** @throws GatewayClientError `invalid_options` for a bad URL, an empty token or a token unfit for the transport. */
  constructor(options: GatewayClientOptions) {
    this.#options = options
    this.#url = toWebSocketUrl(options.url)
    this.#upgrade = upgradeParams(this.#url, options.token, options.credentials ?? "bearer")
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 30_000
    this.#handshakeTimeoutMs = options.handshakeTimeoutMs ?? 15_000
    this.#reconnect =
      options.reconnect === false
        ? undefined
        : {
            initialDelayMs: options.reconnect?.initialDelayMs ?? 500,
            maxDelayMs: options.reconnect?.maxDelayMs ?? 30_000,
            maxAttempts: options.reconnect?.maxAttempts ?? Number.POSITIVE_INFINITY
          }
  }

  /** The WebSocket URL in use (without credentials). */
  get url(): string {
    return this.#url.href
  }

  /** Current lifecycle state. */
  get state(): GatewayClientState {
    return this.#state
  }

  /** The session of the current connection, `undefined` while not connected. */
  get session(): GatewaySession | undefined {
    return this.#state === "connected" ? this.#session : undefined
  }

  /**
   * Opens the socket and performs the handshake (`connect.init`, then `connect.proof`).
   * Resolves with `{client_id, device_id, role}`; resolves at once when already
   * connected, joins an attempt in progress, and while reconnecting waits for the
   * reconnection (rejecting when reconnecting stops). A failed first attempt is not retried.
   *
   * @throws GatewayClientError: `connection_closed` (with `closeCode`), `handshake_timeout`,
   *   `upgrade_rejected`, `handshake_refused`, `protocol_error`; `fatal` is set when
   *   retrying cannot help.
   */
  connect(): Promise<GatewaySession> {
    if (this.#state === "closed") {
      return Promise.reject(new GatewayClientError("connection_closed", "client is closed", { fatal: true }))
    }
    if (this.#state === "connected" && this.#session !== undefined) return Promise.resolve(this.#session)
    if (this.#connecting !== undefined) return this.#connecting
    if (this.#state === "reconnecting") {
      return new Promise((resolve, reject) => this.#reconnectWaiters.push({ resolve, reject }))
    }
    this.#state = "connecting"
    const attempt = this.#attempt().then(
      (session) => {
        this.#connecting = undefined
        return session
      },
      (error: unknown) => {
        this.#connecting = undefined
        if (this.#state === "connecting") this.#state = "idle"
        throw error
      }
    )
    this.#connecting = attempt
    return attempt
  }

  /**
   * Sends a request and resolves with its `result` (`undefined` when there is none).
   * The payload defaults to `{}`. Known types ({@link GatewayRequestMap}) are typed;
   * any other type resolves as `T`.
   *
   * @throws GatewayRequestError on `ok:false`;
   *   GatewayClientError `timeout` after `timeoutMs` (default `requestTimeoutMs`),
   *   `connection_closed` when the socket closes first, `not_connected` when no
   *   connection is established.
   */
  request<T = unknown, K extends string = string>(type: K, ...args: RequestArgs<K>): Promise<RequestResult<K, T>> {
    const [payload, options] = args as [unknown, RequestOptions | undefined]
    const link = this.#link
    if (this.#state !== "connected" || link === undefined || link.closed) {
      return Promise.reject(new GatewayClientError("not_connected", `cannot send ${type}: not connected`))
    }
    return this.#send(link, type, payload ?? {}, options?.timeoutMs ?? this.#requestTimeoutMs) as Promise<
      RequestResult<K, T>
    >
  }

  /**
   * Answers gateway-initiated requests of `type` (e.g. `task.execute`, `approval.request`) with
   * the handler's awaited return value as `result`. A throw answers `ok:false` with the error's
   * string `code` property (else `handler_error`), its message and its `details` property.
   * Types without a handler are answered `ok:false` `unsupported_request`, except `ping`, which
   * is answered `ok:true` unless overridden. One handler per type (a new one replaces the old).
   * An answer is sent on the connection the request came from; if that connection closed
   * meanwhile, the answer is dropped (the gateway has already failed the request).
   *
   * @returns a function that removes the handler.
   */
  onRequest<K extends string>(type: K, handler: GatewayRequestHandler<K>): () => void {
    const stored = handler as (payload: unknown, envelope: WsRequestEnvelope) => unknown
    this.#handlers.set(type, stored)
    return () => {
      if (this.#handlers.get(type) === stored) this.#handlers.delete(type)
    }
  }

  /**
   * Adds a listener (see {@link GatewayClientEventMap}). A listener that throws is
   * reported to the `error` listeners; `error` events without a listener are dropped.
   *
   * @returns a function that removes the listener.
   */
  on<E extends keyof GatewayClientEventMap>(name: E, listener: GatewayClientEventMap[E]): () => void {
    const set = this.#listeners[name] as Set<GatewayClientEventMap[E]>
    set.add(listener)
    return () => {
      set.delete(listener)
    }
  }

  /** Removes a listener added with {@link GatewayClient.on}. */
  off<E extends keyof GatewayClientEventMap>(name: E, listener: GatewayClientEventMap[E]): void {
    ;(this.#listeners[name] as Set<GatewayClientEventMap[E]>).delete(listener)
  }

  /**
   * Events matching `filter` (all when omitted) from now on, across reconnects, as an
   * async iterator. It buffers without bound until read: stop it (`break` out of
   * `for await`, or call `return()`) when done. It ends when the client is closed.
   */
  events(filter?: EventFilter): AsyncIterableIterator<WsEventEnvelope> {
    const accept = matcher(filter)
    const queue: Array<WsEventEnvelope> = []
    const waiters: Array<(result: IteratorResult<WsEventEnvelope>) => void> = []
    let done = this.#state === "closed"
    const finish = () => {
      if (done) return
      done = true
      unsubscribe()
      this.#streams.delete(stream)
      queue.length = 0
      for (const waiter of waiters.splice(0)) waiter({ done: true, value: undefined })
    }
    const stream = { end: finish }
    const unsubscribe = this.on("event", (event) => {
      if (!accept(event)) return
      const waiter = waiters.shift()
      if (waiter !== undefined) waiter({ done: false, value: event })
      else queue.push(event)
    })
    if (done) unsubscribe()
    else this.#streams.add(stream)
    const iterator: AsyncIterableIterator<WsEventEnvelope> = {
      next: () => {
        const value = queue.shift()
        if (value !== undefined) return Promise.resolve({ done: false, value })
        if (done) return Promise.resolve({ done: true, value: undefined })
        return new Promise((resolve) => waiters.push(resolve))
      },
      return: () => {
        finish()
        return Promise.resolve({ done: true, value: undefined })
      },
      [Symbol.asyncIterator]: () => iterator
    }
    return iterator
  }

  /**
   * Closes the connection (code 1000) for good: cancels any reconnect, rejects pending
   * requests with `connection_closed`, ends event iterators. Resolves once the socket
   * has closed (forcibly after 2 s). Idempotent.
   */
  async close(): Promise<void> {
    if (this.#state === "closed") return
    const wasConnected = this.#state === "connected"
    this.#state = "closed"
    this.#session = undefined
    if (this.#reconnectTimer !== undefined) clearTimeout(this.#reconnectTimer)
    this.#reconnectTimer = undefined
    const link = this.#link
    this.#link = undefined
    if (link !== undefined && !link.closed) {
      const closed = new Promise<void>((resolve) => link.socket.once("close", () => resolve()))
      this.#failPending(link, new GatewayClientError("connection_closed", "connection closed: client closed"))
      link.socket.close(1000, "client closed")
      const timer = setTimeout(() => link.socket.terminate(), 2_000)
      await closed
      clearTimeout(timer)
    }
    const closedError = new GatewayClientError("connection_closed", "client is closed", { fatal: true })
    for (const waiter of this.#reconnectWaiters.splice(0)) waiter.reject(closedError)
    if (wasConnected) this.#emit("disconnected", { code: 1000, reason: "client closed", fatal: false, willReconnect: false })
    for (const stream of [...this.#streams]) stream.end()
  }

  // -------------------------------------------------------------------------

  #emit<E extends keyof GatewayClientEventMap>(name: E, value: Parameters<GatewayClientEventMap[E]>[0]): void {
    for (const listener of [...this.#listeners[name]]) {
      try {
        ;(listener as (value: unknown) => void)(value)
      } catch (error) {
        if (name !== "error") {
          this.#emit(
            "error",
            new GatewayClientError("listener_error", `a "${name}" listener threw: ${String(error)}`, { cause: error })
          )
        }
      }
    }
  }

  /** One connection attempt: socket, upgrade, handshake. Installs the link on success. */
  #attempt(): Promise<GatewaySession> {
    return new Promise<GatewaySession>((resolve, reject) => {
      let socket: WebSocket
      try {
        socket = new WebSocket(this.#url, this.#upgrade.protocols, {
          ...this.#upgrade.options,
          handshakeTimeout: this.#handshakeTimeoutMs
        })
      } catch (cause) {
        reject(new GatewayClientError("invalid_options", "cannot open the WebSocket", { cause }))
        return
      }
      const link: Link = { socket, pending: new Map(), closed: false }
      this.#link = link
      let settled = false
      let httpStatus: number | undefined
      let lastError: Error | undefined
      const fail = (error: Error) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        if (!link.closed) socket.terminate()
        reject(error)
      }
      const timer = setTimeout(
        () =>
          fail(
            new GatewayClientError(
              "handshake_timeout",
              `handshake did not complete within ${this.#handshakeTimeoutMs} ms`
            )
          ),
        this.#handshakeTimeoutMs
      )

      socket.on("unexpected-response", (_request, response) => {
        httpStatus = response.statusCode
        response.resume()
        socket.terminate()
      })
      socket.on("error", (error) => {
        lastError = error
      })
      socket.on("message", (data) => this.#onMessage(link, data))
      socket.on("close", (code, reasonBuffer) => {
        const reason = reasonBuffer.toString("utf8")
        link.closed = true
        const closeError =
          this.#state === "closed"
            ? new GatewayClientError("connection_closed", "connection closed: client closed", {
                closeCode: code,
                closeReason: reason
              })
            : httpStatus !== undefined
              ? new GatewayClientError("upgrade_rejected", `gateway rejected the WebSocket upgrade with HTTP ${httpStatus}`, {
                  httpStatus,
                  fatal: httpStatus === 401 || httpStatus === 403
                })
              : lastError !== undefined && /^Server sent (no|an invalid) subprotocol/.test(lastError.message)
                ? new GatewayClientError("protocol_error", `gateway did not negotiate ${WS_SUBPROTOCOL}: ${lastError.message}`, {
                    fatal: true,
                    cause: lastError
                  })
                : new GatewayClientError(
                  "connection_closed",
                  `connection closed (${describeClose(code, reason)})${
                    code === 1006 && lastError !== undefined ? `: ${lastError.message}` : ""
                  }`,
                  { closeCode: code, closeReason: reason, fatal: FATAL_CLOSE_CODES.has(code), cause: lastError }
                )
        if (!settled) {
          fail(closeError)
          this.#failPending(link, closeError)
        } else {
          this.#failPending(link, closeError)
          this.#onLinkClosed(link, code, reason)
        }
      })
      socket.on("open", () => {
        if (this.#upgrade.protocols.length > 0 && socket.protocol !== WS_SUBPROTOCOL) {
          fail(
            new GatewayClientError("protocol_error", `gateway negotiated subprotocol ${JSON.stringify(socket.protocol)}`, {
              fatal: true
            })
          )
          return
        }
        this.#handshake(link).then(
          (session) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            if (this.#state === "closed" || link.closed) {
              reject(new GatewayClientError("connection_closed", "connection closed during the handshake"))
              return
            }
            const reconnected = this.#everConnected
            this.#everConnected = true
            this.#state = "connected"
            this.#session = session
            this.#reconnectAttempt = 0
            resolve(session)
            for (const waiter of this.#reconnectWaiters.splice(0)) waiter.resolve(session)
            this.#emit("connected", { ...session, reconnected })
          },
          (error: Error) => fail(error)
        )
      })
    })
  }

  async #handshake(link: Link): Promise<GatewaySession> {
    const { identity, role } = this.#options
    const device = {
      ...this.#options.device,
      device_id: identity.device_id,
      pubkey: identity.pubkey
    }
    const init = await this.#send(
      link,
      "connect.init",
      {
        protocol_rev: GATEWAY_PROTOCOL_REV,
        role,
        device,
        capabilities: this.#options.capabilities ?? []
      },
      this.#handshakeTimeoutMs
    ).catch(refused)
    if (!isRecord(init) || typeof init["connection_id"] !== "string" || typeof init["challenge"] !== "string") {
      throw new GatewayClientError("protocol_error", "malformed connect.init result", { fatal: true })
    }
    const { connection_id, challenge } = init as unknown as WsConnectInitResult
    const proof = signProof(identity, { role, connectionId: connection_id, challenge })
    const result = await this.#send(link, "connect.proof", { connection_id, proof }, this.#handshakeTimeoutMs).catch(
      refused
    )
    if (!isRecord(result) || typeof result["client_id"] !== "string") {
      throw new GatewayClientError("protocol_error", "malformed connect.proof result", { fatal: true })
    }
    return {
      client_id: result["client_id"],
      device_id: typeof result["device_id"] === "string" ? result["device_id"] : identity.device_id,
      role: result["role"] === "client" || result["role"] === "node" ? result["role"] : role
    }
  }

  #send(link: Link, type: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (link.closed || link.socket.readyState !== WebSocket.OPEN) {
        reject(new GatewayClientError("not_connected", `cannot send ${type}: not connected`))
        return
      }
      const requestId = randomUUID()
      let text: string
      try {
        text = JSON.stringify({ request_id: requestId, type, payload })
      } catch (cause) {
        reject(new TypeError(`payload of ${type} is not JSON-serializable`, { cause }))
        return
      }
      const pending: Pending = { type, resolve, reject, timer: undefined }
      if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
        pending.timer = setTimeout(() => {
          link.pending.delete(requestId)
          reject(new GatewayClientError("timeout", `${type} timed out after ${timeoutMs} ms`))
        }, timeoutMs)
      }
      link.pending.set(requestId, pending)
      link.socket.send(text, (error) => {
        if (error === undefined || error === null) return
        if (link.pending.delete(requestId)) {
          if (pending.timer !== undefined) clearTimeout(pending.timer)
          reject(new GatewayClientError("connection_closed", `cannot send ${type}: ${error.message}`, { cause: error }))
        }
      })
    })
  }

  #failPending(link: Link, error: GatewayClientError): void {
    for (const [id, pending] of link.pending) {
      link.pending.delete(id)
      if (pending.timer !== undefined) clearTimeout(pending.timer)
      pending.reject(error)
    }
  }

  #onMessage(link: Link, data: RawData): void {
    let message: unknown
    try {
      message = JSON.parse(rawToString(data))
    } catch {
      this.#emit("error", new GatewayClientError("protocol_error", "gateway sent a message that is not valid JSON"))
      return
    }
    if (!isRecord(message)) {
      this.#emit("error", new GatewayClientError("protocol_error", "gateway sent a message that is not an object"))
      return
    }
    if (typeof message["event_id"] === "string" && typeof message["type"] === "string") {
      this.#emit("event", message as unknown as WsEventEnvelope)
    } else if (typeof message["request_id"] === "string" && typeof message["ok"] === "boolean") {
      this.#onResponse(link, message as unknown as WsResponseEnvelope)
    } else if (typeof message["request_id"] === "string" && typeof message["type"] === "string") {
      void this.#onGatewayRequest(link, message as unknown as WsRequestEnvelope)
    } else {
      this.#emit("error", new GatewayClientError("protocol_error", "gateway sent a message of unknown shape"))
    }
  }

  #onResponse(link: Link, response: WsResponseEnvelope): void {
    const pending = link.pending.get(response.request_id)
    if (pending === undefined) return // late (timed out) or unknown: nothing waits for it
    link.pending.delete(response.request_id)
    if (pending.timer !== undefined) clearTimeout(pending.timer)
    if (response.ok) {
      pending.resolve(response.result)
    } else {
      const error: WsError = isRecord(response.error)
        ? {
            code: typeof response.error.code === "string" ? response.error.code : "unknown_error",
            message: typeof response.error.message === "string" ? response.error.message : "request failed",
            ...(response.error.details === undefined ? {} : { details: response.error.details })
          }
        : { code: "unknown_error", message: "request failed" }
      pending.reject(new GatewayRequestError(error, pending.type, response.request_id))
    }
  }

  async #onGatewayRequest(link: Link, request: WsRequestEnvelope): Promise<void> {
    const handler = this.#handlers.get(request.type) ?? (request.type === "ping" ? () => undefined : undefined)
    let reply: Record<string, unknown>
    if (handler === undefined) {
      reply = {
        ok: false,
        error: { code: "unsupported_request", message: `request not supported: ${request.type}` }
      }
    } else {
      try {
        const result = await handler(request.payload, request)
        reply = result === undefined ? { ok: true } : { ok: true, result }
      } catch (error) {
        reply = { ok: false, error: handlerError(error) }
      }
    }
    if (link.closed || link.socket.readyState !== WebSocket.OPEN) return // the gateway dropped the request with the connection
    let text: string
    try {
      text = JSON.stringify({ request_id: request.request_id, type: request.type, ...reply })
    } catch (error) {
      text = JSON.stringify({
        request_id: request.request_id,
        type: request.type,
        ok: false,
        error: { code: "handler_error", message: `result is not JSON-serializable: ${String(error)}` }
      })
    }
    link.socket.send(text)
  }

  #onLinkClosed(link: Link, code: number, reason: string): void {
    if (this.#link !== link || this.#state !== "connected") return
    this.#link = undefined
    this.#session = undefined
    const fatal = FATAL_CLOSE_CODES.has(code)
    if (REPORTED_CLOSE_CODES.has(code)) {
      this.#emit(
        "error",
        new GatewayClientError("connection_closed", `gateway closed the connection (${describeClose(code, reason)})`, {
          closeCode: code,
          closeReason: reason
        })
      )
    }
    const willReconnect = !fatal && this.#reconnect !== undefined
    this.#state = willReconnect ? "reconnecting" : "idle"
    this.#emit("disconnected", { code, reason, fatal, willReconnect })
    if (willReconnect) this.#scheduleReconnect()
  }

  #stopReconnecting(error: Error): void {
    this.#state = "idle"
    this.#reconnectAttempt = 0
    for (const waiter of this.#reconnectWaiters.splice(0)) waiter.reject(error)
  }

  #scheduleReconnect(): void {
    const policy = this.#reconnect
    if (policy === undefined || this.#state !== "reconnecting") return
    if (this.#reconnectAttempt >= policy.maxAttempts) {
      const error = new GatewayClientError(
        "reconnect_exhausted",
        `gave up reconnecting after ${this.#reconnectAttempt} attempts`,
        { fatal: true }
      )
      this.#emit("error", error)
      this.#stopReconnecting(error)
      return
    }
    this.#reconnectAttempt += 1
    const attempt = this.#reconnectAttempt
    const cap = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1))
    const delayMs = Math.floor(Math.random() * cap)
    this.#emit("reconnecting", { attempt, delayMs })
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined
      if (this.#state !== "reconnecting") return
      this.#attempt().then(
        () => undefined,
        (error: unknown) => {
          if (this.#state !== "reconnecting") return
          const failure = error instanceof Error ? error : new Error(String(error))
          this.#emit("error", failure)
          if ((failure as { fatal?: unknown }).fatal === true) {
            this.#stopReconnecting(failure)
            return
          }
          this.#scheduleReconnect()
        }
      )
    }, delayMs)
  }
}

/**
 * Creates a {@link GatewayClient} and connects it.
 *
 * @throws the errors of {@link GatewayClient.connect} (the client is closed first).
 */
export const connectGateway = async (options: GatewayClientOptions): Promise<GatewayClient> => {
  const client = new GatewayClient(options)
  try {
    await client.connect()
  } catch (error) {
    await client.close()
    throw error
  }
  return client
}
