/**
 * The transport-independent core of the gateway's WebSocket client (gateway-api.md "WebSocket API",
 * "Authentication", "Events"; reference §2.8, §5.1–5.3), for operator programs (role `client`) and nodes
 * (role `node`), in Node, Deno and browsers: it imports no Node built-in and no WebSocket implementation.
 *
 * Plain TypeScript: Promises for requests, listeners and an async iterator for events. Connections are
 * opened through the {@link GatewaySocketFactory} of the options (default: the WHATWG `globalThis.WebSocket`,
 * `socket.ts`; Node's `GatewayClient` uses the `ws` package, `nodeSocket.ts`), and the handshake proof is
 * signed with WebCrypto (`deviceKey.ts`). One instance owns at most one socket at a time and reconnects
 * (exponential backoff, full jitter: `reconnect.ts`) when an established connection drops for a non-fatal
 * reason. In node mode it keeps the scoped token of its pairing (`pairing.approved`) and switches between it
 * and its bootstrap token (docs/websocket.md "Client SDK: node mode").
 */
import { Result } from "effect"
import {
  GATEWAY_PROTOCOL_REV,
  WS_SUBPROTOCOL,
  type WsEventEnvelope,
  type WsRequestEnvelope,
  type WsResponseEnvelope
} from "../../services/ws-sessions/schema.ts"
import { signProofAsync } from "./deviceKey.ts"
import { randomUuid } from "./encoding.ts"
import {
  closeErrorOf,
  decodeEvent,
  decodeInitResult,
  decodeProofResult,
  decodeRequest,
  decodeResponse,
  describeClose,
  eventStream,
  handlerError,
  isRecord,
  matcher,
  messageOf,
  refused,
  scopedTokenRefusal
} from "./envelopes.ts"
import {
  FATAL_CLOSE_CODES,
  GatewayClientError,
  GatewayRequestError,
  REPORTED_CLOSE_CODES,
  SCOPED_TOKEN_REFUSED_CLOSE_CODES
} from "./errors.ts"
import { reconnectSchedule, type ScheduleStepper, stepper } from "./reconnect.ts"
import { memoryScopedTokenStore, type ScopedTokenStore } from "./scopedTokenStore.ts"
import { type GatewaySocket, type GatewaySocketFactory, type SocketCloseInfo, webSocketFactory } from "./socket.ts"
import { SESSION_UPGRADE, toWebSocketUrl, type UpgradeParams, upgradeParams } from "./transport.ts"
import type {
  ApprovalListPage,
  ApprovalListPayload,
  ApprovalResolvePayload,
  ApprovalResolveResult,
  EventFilter,
  GatewayClientEventMap,
  GatewayClientOptions,
  GatewayClientState,
  GatewayCredentials,
  GatewayRequestHandler,
  GatewaySession,
  PairingApprovePayload,
  PairingDenyPayload,
  PairingRecord,
  PairingResolveResult,
  PairingRevokePayload,
  RequestArgs,
  RequestOptions,
  ReconnectOptions,
  RequestResult,
  UnpairedInfo
} from "./types.ts"

// ---------------------------------------------------------------------------
// Internals
// ---------------------------------------------------------------------------

interface Pending {
  readonly type: string
  readonly resolve: (value: unknown) => void
  readonly reject: (error: Error) => void
  timer: ReturnType<typeof setTimeout> | undefined
}

/** A node's scoped token and its upgrade parameters. */
interface ScopedCredential {
  readonly token: string
  readonly upgrade: UpgradeParams
}

/** One socket and the requests sent on it. */
interface Link {
  readonly socket: GatewaySocket
  /** Resolves once the socket has closed. */
  readonly whenClosed: Promise<void>
  readonly pending: Map<string, Pending>
  /** The scoped token it authenticated with (`undefined`: the bootstrap token). */
  readonly scoped: ScopedCredential | undefined
  closed: boolean
  /** Closed by the client to reconnect with a newly received scoped token. */
  switching: boolean
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
export class GatewayClientCore {
  readonly #options: GatewayClientOptions
  readonly #url: URL
  readonly #credentials: GatewayCredentials
  /** Upgrade parameters of the bootstrap `token` (`undefined`: a node relying on its stored scoped token). */
  readonly #bootstrap: UpgradeParams | undefined
  /** Node mode: where the scoped token is kept (`undefined` for clients). */
  readonly #store: ScopedTokenStore | undefined
  readonly #requestTimeoutMs: number
  readonly #handshakeTimeoutMs: number
  readonly #reconnect: Required<ReconnectOptions> | undefined
  readonly #socket: GatewaySocketFactory

  #state: GatewayClientState = "idle"
  #link: Link | undefined
  #scoped: ScopedCredential | undefined
  #storeLoaded: Promise<void> | undefined
  #session: GatewaySession | undefined
  #connecting: Promise<GatewaySession> | undefined
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined
  #reconnectAttempt = 0
  #reconnectDelays: ScheduleStepper | undefined
  #everConnected = false
  #reconnectWaiters: Array<{ readonly resolve: (session: GatewaySession) => void; readonly reject: (error: Error) => void }> =
    []

  readonly #listeners: { [K in keyof GatewayClientEventMap]: Set<GatewayClientEventMap[K]> } = {
    event: new Set(),
    connected: new Set(),
    disconnected: new Set(),
    reconnecting: new Set(),
    paired: new Set(),
    unpaired: new Set(),
    error: new Set()
  }
  readonly #handlers = new Map<string, (payload: unknown, envelope: WsRequestEnvelope) => unknown>()
  readonly #streams = new Set<{ readonly end: () => void }>()

  /**
   * @throws GatewayClientError `invalid_options` for a bad URL, an empty token, a token unfit for the transport,
   *   no `token` (which only a node with a `scopedTokens` store may omit), or header credentials (`bearer`,
   *   `cookie`) on a socket factory that cannot send headers (a browser's `WebSocket`).
   */
  constructor(options: GatewayClientOptions) {
    this.#options = options
    this.#socket = options.socket ?? webSocketFactory()
    this.#url = toWebSocketUrl(options.url)
    this.#credentials = options.credentials ?? (this.#socket.headers ? "bearer" : "subprotocol")
    if (!this.#socket.headers && this.#credentials !== "subprotocol" && this.#credentials !== "session") {
      throw new GatewayClientError(
        "invalid_options",
        `credentials "${this.#credentials}" need upgrade headers, which this WebSocket cannot send: use "subprotocol"`
      )
    }
    this.#bootstrap = this.#credentials === "session"
      ? SESSION_UPGRADE
      : options.token === undefined
      ? undefined
      : upgradeParams(this.#url, options.token, this.#credentials)
    if (this.#bootstrap === undefined && (options.role !== "node" || options.scopedTokens === undefined)) {
      throw new GatewayClientError("invalid_options", "token is required (only a node with a scopedTokens store may omit it)")
    }
    this.#store = options.role === "node" ? options.scopedTokens ?? memoryScopedTokenStore() : undefined
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
   * Node mode: whether the client holds the scoped token of an approved pairing (received in `pairing.approved`
   * or loaded from `scopedTokens` by `connect()`); (re)connections then authenticate with it. Always false for clients.
   */
  get paired(): boolean {
    return this.#scoped !== undefined
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
    const attempt = this.#loadScoped().then(() => this.#attemptWithFallback()).then(
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
   * `approval.list` (operator clients; device tokens need operator.approvals): one page of approvals,
   * oldest first (`status` default `pending`, `limit` default 100). Pass `next_cursor` back as `cursor`.
   */
  listApprovals(payload: ApprovalListPayload = {}, options?: RequestOptions): Promise<ApprovalListPage> {
    return this.request("approval.list", payload, options)
  }

  /**
   * `approval.resolve`: approve or deny; idempotent once the approval is terminal (the approval as it is).
   * `mode: "always"` with `overrides` selected from `context.policy.suggested_overrides` also creates them.
   */
  resolveApproval(payload: ApprovalResolvePayload, options?: RequestOptions): Promise<ApprovalResolveResult> {
    return this.request("approval.resolve", payload, options)
  }

  /**
   * Answers the gateway's `approval.request` (sent to every eligible operator client when an approval is
   * created) with `{approved, reason?}`: `onRequest("approval.request", handler)`. The first valid answer
   * of any client decides; the outcome arrives as the `approval.resolved` event.
   *
   * @returns a function that removes the handler.
   */
  onApprovalRequest(handler: GatewayRequestHandler<"approval.request">): () => void {
    return this.onRequest("approval.request", handler)
  }

  /**
   * `pairing.approve` (operator clients; device tokens need operator.pairing): approve a pending pairing with
   * its `trust_level` and `capability_allowlist`. The gateway sends the node its scoped token (`pairing.approved`,
   * to that node only) and `pairing.resolved {pairing}` to operators. `not_found` unless the pairing is pending.
   */
  approvePairing(payload: PairingApprovePayload, options?: RequestOptions): Promise<PairingResolveResult> {
    return this.request("pairing.approve", payload, options)
  }

  /** `pairing.deny`: deny a pending pairing; the gateway closes the node's connections (4001 `pairing denied`). */
  denyPairing(payload: PairingDenyPayload, options?: RequestOptions): Promise<PairingResolveResult> {
    return this.request("pairing.deny", payload, options)
  }

  /**
   * `pairing.revoke`: revoke an approved pairing; its scoped token stops working and the gateway closes the node's
   * connections (4001 `pairing revoked`).
   */
  revokePairing(payload: PairingRevokePayload, options?: RequestOptions): Promise<PairingResolveResult> {
    return this.request("pairing.revoke", payload, options)
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
    return eventStream({
      accept: matcher(filter),
      ended: this.#state === "closed",
      subscribe: (listener) => this.on("event", listener),
      streams: this.#streams
    })
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
      this.#failPending(link, new GatewayClientError("connection_closed", "connection closed: client closed"))
      link.socket.close(1000, "client closed")
      let timer: ReturnType<typeof setTimeout> | undefined
      const forced = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          link.socket.terminate()
          resolve()
        }, 2_000)
      })
      await Promise.race([link.whenClosed, forced])
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

  #isClosed(): boolean {
    return this.#state === "closed"
  }

  /** Node mode: loads the stored scoped token once (when it is for this device and gateway). */
  #loadScoped(): Promise<void> {
    const store = this.#store
    if (store === undefined) return Promise.resolve()
    this.#storeLoaded ??= store.load().then(
      (stored) => {
        if (stored === undefined || this.#scoped !== undefined) return
        if (stored.device_id !== this.#options.identity.device_id || stored.gateway !== this.#url.href) return
        try {
          this.#scoped = { token: stored.scoped_token, upgrade: upgradeParams(this.#url, stored.scoped_token, this.#credentials) }
        } catch {
          this.#emit("error", new GatewayClientError("token_store_error", "the stored scoped token is unfit for the credential transport"))
        }
      },
      (error: unknown) =>
        this.#emit(
          "error",
          new GatewayClientError("token_store_error", `cannot load the stored scoped token: ${messageOf(error)}`, { cause: error })
        )
    )
    return this.#storeLoaded
  }

  /**
   * One connection attempt; when it used the scoped token and the gateway refused it (401, 4001, 4008), the token
   * is forgotten and, with a bootstrap token, a second attempt uses that.
   */
  async #attemptWithFallback(): Promise<GatewaySession> {
    const scoped = this.#scoped
    try {
      return await this.#attempt()
    } catch (error) {
      const refusal = scoped === undefined || this.#scoped !== scoped || this.#isClosed() ? undefined : scopedTokenRefusal(error)
      if (refusal === undefined) throw error
      const fallback = this.#bootstrap !== undefined
      await this.#forgetScoped(refusal, fallback)
      if (!fallback || this.#isClosed()) throw error
      return this.#attempt()
    }
  }

  /** Drops the scoped token (memory and store) and tells the `unpaired` listeners. */
  async #forgetScoped(refusal: Omit<UnpairedInfo, "fallback">, fallback: boolean): Promise<void> {
    this.#scoped = undefined
    try {
      await this.#store?.clear()
    } catch (error) {
      this.#emit(
        "error",
        new GatewayClientError("token_store_error", `cannot clear the stored scoped token: ${messageOf(error)}`, { cause: error })
      )
    }
    this.#emit("unpaired", { ...refusal, fallback })
  }

  /** One connection attempt: socket, upgrade, handshake. Installs the link on success. */
  #attempt(): Promise<GatewaySession> {
    return new Promise<GatewaySession>((resolve, reject) => {
      const scoped = this.#scoped
      const upgrade = scoped?.upgrade ?? this.#bootstrap
      if (upgrade === undefined) {
        reject(
          new GatewayClientError("invalid_options", "no credential: no token given and no scoped token stored for this device and gateway", {
            fatal: true
          })
        )
        return
      }
      let link: Link | undefined
      let settled = false
      let timer: ReturnType<typeof setTimeout> | undefined
      const fail = (error: Error) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        if (link !== undefined && !link.closed) link.socket.terminate()
        reject(error)
      }
      let markClosed: () => void = () => undefined
      const whenClosed = new Promise<void>((resolve) => {
        markClosed = resolve
      })
      const onClose = (info: SocketCloseInfo): void => {
        const { code, reason } = info
        if (link === undefined) return
        link.closed = true
        markClosed()
        const closeError = closeErrorOf(info, this.#state === "closed")
        if (!settled) {
          fail(closeError)
          this.#failPending(link, closeError)
        } else {
          this.#failPending(link, closeError)
          this.#onLinkClosed(link, code, reason)
        }
      }
      const onOpen = (): void => {
        if (link === undefined) return
        const opened = link
        if (upgrade.protocols.length > 0 && opened.socket.protocol() !== WS_SUBPROTOCOL) {
          fail(
            new GatewayClientError("protocol_error", `gateway negotiated subprotocol ${JSON.stringify(opened.socket.protocol())}`, {
              fatal: true
            })
          )
          return
        }
        this.#handshake(opened).then(
          (session) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            if (this.#state === "closed" || opened.closed) {
              reject(new GatewayClientError("connection_closed", "connection closed during the handshake"))
              return
            }
            const reconnected = this.#everConnected
            this.#everConnected = true
            this.#state = "connected"
            this.#session = session
            this.#reconnectAttempt = 0
            this.#reconnectDelays = undefined
            resolve(session)
            for (const waiter of this.#reconnectWaiters.splice(0)) waiter.resolve(session)
            this.#emit("connected", { ...session, reconnected, paired: scoped !== undefined })
          },
          (error: Error) => fail(error)
        )
      }
      let socket: GatewaySocket
      try {
        socket = this.#socket.open(
          {
            url: this.#url,
            protocols: upgrade.protocols,
            headers: upgrade.headers,
            origin: upgrade.origin,
            handshakeTimeoutMs: this.#handshakeTimeoutMs
          },
          {
            open: () => onOpen(),
            message: (text) => {
              if (link !== undefined) this.#onMessage(link, text)
            },
            close: onClose
          }
        )
      } catch (cause) {
        reject(new GatewayClientError("invalid_options", "cannot open the WebSocket", { cause }))
        return
      }
      link = { socket, whenClosed, pending: new Map(), scoped, closed: false, switching: false }
      this.#link = link
      timer = setTimeout(
        () =>
          fail(
            new GatewayClientError(
              "handshake_timeout",
              `handshake did not complete within ${this.#handshakeTimeoutMs} ms`
            )
          ),
        this.#handshakeTimeoutMs
      )
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
    const initResult = decodeInitResult(init)
    if (Result.isFailure(initResult)) {
      throw new GatewayClientError("protocol_error", "malformed connect.init result", { fatal: true })
    }
    const { connection_id, challenge } = initResult.success
    const proof = await signProofAsync(identity, { role, connectionId: connection_id, challenge })
    const result = await this.#send(link, "connect.proof", { connection_id, proof }, this.#handshakeTimeoutMs).catch(
      refused
    )
    const proofResult = decodeProofResult(result)
    if (Result.isFailure(proofResult)) {
      throw new GatewayClientError("protocol_error", "malformed connect.proof result", { fatal: true })
    }
    return proofResult.success
  }

  #send(link: Link, type: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (link.closed || !link.socket.isOpen()) {
        reject(new GatewayClientError("not_connected", `cannot send ${type}: not connected`))
        return
      }
      const requestId = randomUuid()
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

  #onMessage(link: Link, text: string): void {
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {
      this.#emit("error", new GatewayClientError("protocol_error", "gateway sent a message that is not valid JSON"))
      return
    }
    if (!isRecord(message)) {
      this.#emit("error", new GatewayClientError("protocol_error", "gateway sent a message that is not an object"))
      return
    }
    // Events carry event_id, responses ok; anything else with a type is a gateway-initiated request.
    const decoded = "event_id" in message
      ? Result.map(decodeEvent(message), (event) => () => this.#onEvent(link, event))
      : "ok" in message
      ? Result.map(decodeResponse(message), (response) => () => this.#onResponse(link, response))
      : Result.map(decodeRequest(message), (request) => () => void this.#onGatewayRequest(link, request))
    if (Result.isSuccess(decoded)) decoded.success()
    else this.#emit("error", new GatewayClientError("protocol_error", "gateway sent a message of unknown shape"))
  }

  #onEvent(link: Link, event: WsEventEnvelope): void {
    if (event.type !== "pairing.approved") {
      this.#emit("event", event)
      return
    }
    // The scoped token is for the SDK alone: listeners (which may log events) get the event without it.
    const { scoped_token: token, ...payload } = isRecord(event.payload) ? event.payload : {}
    this.#emit("event", { ...event, payload })
    if (this.#store !== undefined) void this.#onPairingApproved(link, payload["pairing"], token)
  }

  /** Node mode: stores the scoped token of `pairing.approved`, then reconnects with it. */
  async #onPairingApproved(link: Link, pairing: unknown, token: unknown): Promise<void> {
    const store = this.#store!
    const deviceId = this.#options.identity.device_id
    const node = isRecord(pairing) ? pairing["node"] : undefined
    const nodeId = isRecord(node) ? node["node_id"] : undefined
    if (typeof token !== "string" || token === "" || !isRecord(pairing) || (nodeId !== undefined && nodeId !== deviceId)) {
      this.#emit("error", new GatewayClientError("protocol_error", "pairing.approved without a scoped_token for this device"))
      return
    }
    let credential: ScopedCredential
    try {
      credential = { token, upgrade: upgradeParams(this.#url, token, this.#credentials) }
    } catch {
      this.#emit("error", new GatewayClientError("protocol_error", "pairing.approved carried a scoped_token unfit for the credential transport"))
      return
    }
    this.#scoped = credential
    const pairingId = pairing["pairing_id"]
    let stored = true
    try {
      await store.save({
        scoped_token: token,
        device_id: deviceId,
        gateway: this.#url.href,
        ...(typeof pairingId === "number" ? { pairing_id: pairingId } : {})
      })
    } catch (error) {
      stored = false
      this.#emit("error", new GatewayClientError("token_store_error", `cannot store the scoped token: ${messageOf(error)}`, { cause: error }))
    }
    if (this.#isClosed()) return
    this.#emit("paired", { pairing: pairing as unknown as PairingRecord, stored })
    // Reconnect at once on the new credential; a connection that dropped meanwhile reconnects with it anyway.
    if (this.#scoped === credential && this.#link === link && this.#state === "connected" && !link.closed) {
      link.switching = true
      link.socket.close(1000, "switching to the scoped token")
    }
  }

  #onResponse(link: Link, response: WsResponseEnvelope): void {
    const pending = link.pending.get(response.request_id)
    if (pending === undefined) return // late (timed out) or unknown: nothing waits for it
    link.pending.delete(response.request_id)
    if (pending.timer !== undefined) clearTimeout(pending.timer)
    if (response.ok) pending.resolve(response.result)
    else pending.reject(new GatewayRequestError(response.error ?? { code: "unknown_error", message: "request failed" }, pending.type, response.request_id))
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
    if (link.closed || !link.socket.isOpen()) return // the gateway dropped the request with the connection
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
    link.socket.send(text, () => undefined) // a failed send: the connection is closing, the gateway fails the request
  }

  #onLinkClosed(link: Link, code: number, reason: string): void {
    if (this.#link !== link || this.#state !== "connected") return
    this.#link = undefined
    this.#session = undefined
    if (link.switching) {
      this.#state = "reconnecting"
      this.#emit("disconnected", { code, reason, fatal: false, willReconnect: true })
      this.#reconnectNow()
      return
    }
    if (link.scoped !== undefined && link.scoped === this.#scoped && SCOPED_TOKEN_REFUSED_CLOSE_CODES.has(code)) {
      // The scoped token was refused (pairing revoked, token mismatch): back to the bootstrap token, if any.
      const fallback = this.#bootstrap !== undefined
      this.#state = fallback ? "reconnecting" : "idle"
      this.#emit("disconnected", { code, reason, fatal: !fallback, willReconnect: fallback })
      void this.#forgetScoped({ closeCode: code, closeReason: reason, httpStatus: undefined }, fallback).then(() => {
        if (fallback) this.#reconnectNow()
      })
      return
    }
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
    this.#reconnectDelays = undefined
    for (const waiter of this.#reconnectWaiters.splice(0)) waiter.reject(error)
  }

  #scheduleReconnect(): void {
    const policy = this.#reconnect
    if (policy === undefined || this.#state !== "reconnecting") return
    const delays = (this.#reconnectDelays ??= stepper(reconnectSchedule(policy)))
    const delayMs = delays()
    if (delayMs === undefined) {
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
    this.#emit("reconnecting", { attempt, delayMs })
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined
      this.#reconnectNow()
    }, delayMs)
  }

  /**
   * A reconnect attempt now (also the client's own credential switches, which reconnect at once even with
   * `reconnect: false`); a failure schedules the next one by the policy, or stops.
   */
  #reconnectNow(): void {
    if (this.#state !== "reconnecting") return
    this.#attemptWithFallback().then(
      () => undefined,
      (error: unknown) => {
        if (this.#state !== "reconnecting") return
        const failure = error instanceof Error ? error : new Error(String(error))
        this.#emit("error", failure)
        if ((failure as { fatal?: unknown }).fatal === true || this.#reconnect === undefined) {
          this.#stopReconnecting(failure)
          return
        }
        this.#scheduleReconnect()
      }
    )
  }
}

/**
 * Connects `client`, closing it when the first connection fails.
 *
 * @throws the errors of {@link GatewayClientCore.connect}.
 */
export const connectWith = async <C extends GatewayClientCore>(client: C): Promise<C> => {
  try {
    await client.connect()
  } catch (error) {
    await client.close()
    throw error
  }
  return client
}
