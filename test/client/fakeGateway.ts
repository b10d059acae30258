/**
 * A small fake of the gateway's WebSocket endpoint for client SDK tests
 * (`ws` WebSocketServer on 127.0.0.1, port 0). It authenticates the upgrade
 * like the gateway (bearer header, same-origin cookie, or `svc-auth.*`
 * subprotocol; close 4001 otherwise), runs handshake v2 (protocol_rev 4005,
 * device_id 4006, proof checked with `verifyProof`, 4007), answers a few
 * request types, and lets a test push events, gateway-initiated requests and
 * close codes.
 */
import { randomBytes, randomUUID } from "node:crypto"
import type { IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import WebSocket, { WebSocketServer } from "ws"
import { deviceIdFromPubkey, proofTranscript, verifyProof } from "../../services/ws-sessions/deviceIdentity.ts"
import {
  GATEWAY_PROTOCOL_REV,
  WS_AUTH_SUBPROTOCOL_PREFIX,
  WS_SUBPROTOCOL,
  WsCloseCode,
  type WsError
} from "../../services/ws-sessions/schema.ts"

/** What the fake saw on one upgrade request. */
export interface UpgradeRecord {
  readonly credential: "bearer" | "cookie" | "subprotocol" | undefined
  readonly token: string | undefined
  readonly authorization: string | undefined
  readonly cookie: string | undefined
  readonly origin: string | undefined
  readonly host: string | undefined
  readonly offeredProtocols: ReadonlyArray<string>
  /** The subprotocol the fake answered (`undefined`: none). */
  readonly negotiated: string | undefined
}

/** A response the fake's request handlers return; `undefined` means "never answer". */
export type FakeReply = { readonly ok: true; readonly result?: unknown } | { readonly ok: false; readonly error: WsError }

export type FakeHandler = (payload: unknown, peer: FakePeer) => FakeReply | undefined | Promise<FakeReply | undefined>

const ok = (result?: unknown): FakeReply => (result === undefined ? { ok: true } : { ok: true, result })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A socket that completed the handshake. */
export class FakePeer {
  readonly received: Array<Record<string, unknown>> = []
  readonly closed: Promise<{ readonly code: number; readonly reason: string }>
  readonly #responses = new Map<string, (envelope: Record<string, unknown>) => void>()

  constructor(
    readonly socket: WebSocket,
    readonly upgrade: UpgradeRecord,
    readonly init: {
      readonly role: string
      readonly device: Record<string, unknown>
      readonly capabilities: ReadonlyArray<unknown>
    },
    readonly clientId: string
  ) {
    this.closed = new Promise((resolve) =>
      socket.once("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") }))
    )
  }

  /** Sends an event envelope. */
  sendEvent(type: string, payload: unknown, scope?: unknown): string {
    const event_id = randomUUID()
    this.socket.send(
      JSON.stringify({ event_id, type, occurred_at: new Date().toISOString(), payload, ...(scope === undefined ? {} : { scope }) })
    )
    return event_id
  }

  /** Sends a gateway-initiated request and resolves with the client's response envelope. */
  request(type: string, payload: unknown, requestId: string = `${type}-${randomUUID()}`): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.#responses.set(requestId, resolve)
      this.socket.send(JSON.stringify({ request_id: requestId, type, payload }))
    })
  }

  /** Sends raw text. */
  sendRaw(text: string): void {
    this.socket.send(text)
  }

  /** Closes with a code (and waits until closed). */
  async close(code: number, reason = ""): Promise<void> {
    this.socket.close(code, reason)
    await this.closed
  }

  /** Drops the TCP connection without a close frame (the client sees 1006). */
  async terminate(): Promise<void> {
    this.socket.terminate()
    await this.closed
  }

  /** @internal */
  onResponse(envelope: Record<string, unknown>): boolean {
    const resolve = this.#responses.get(envelope["request_id"] as string)
    if (resolve === undefined) return false
    this.#responses.delete(envelope["request_id"] as string)
    resolve(envelope)
    return true
  }
}

export interface FakeGatewayOptions {
  readonly token?: string
}

const parseCookies = (header: string | undefined): Map<string, string> => {
  const out = new Map<string, string>()
  for (const part of (header ?? "").split(";")) {
    const index = part.indexOf("=")
    if (index > 0) out.set(part.slice(0, index).trim(), part.slice(index + 1).trim())
  }
  return out
}

const sameOrigin = (origin: string | undefined, host: string | undefined): boolean => {
  if (origin === undefined || host === undefined) return false
  try {
    const url = new URL(origin)
    if (url.protocol !== "http:" && url.protocol !== "https:") return false
    const port = url.port === "" ? (url.protocol === "https:" ? "443" : "80") : url.port
    const [hostName, hostPort = url.protocol === "https:" ? "443" : "80"] = host.toLowerCase().split(":")
    return url.hostname.toLowerCase() === hostName && port === hostPort
  } catch {
    return false
  }
}

/** The fake gateway server. */
export class FakeGateway {
  readonly upgrades: Array<UpgradeRecord> = []
  /** Tokens of upgrades refused with 401 (see `unauthorizedTokens`). */
  readonly refusedUpgrades: Array<string> = []
  /** Requests answered by a handler so far (a sync point: later answers on a socket arrive after earlier ones). */
  answered = 0
  readonly peers: Array<FakePeer> = []
  /** Answers to client requests by type (after the handshake); tests may add or replace entries. */
  readonly handlers = new Map<string, FakeHandler>()
  /** Answer the next N upgrades with this HTTP status instead of 101. */
  rejectUpgrades: { count: number; status: number } = { count: 0, status: 503 }
  /** When set, `connect.init` is answered `ok:false` with this error. */
  refuseInit: WsError | undefined
  /** Further accepted tokens (e.g. a node's scoped token), besides `token`. */
  readonly acceptedTokens = new Set<string>()
  /** Tokens refused with HTTP 401 before the upgrade (as the gateway refuses a revoked scoped token). */
  readonly unauthorizedTokens = new Set<string>()
  readonly #peerWaiters: Array<(peer: FakePeer) => void> = []

  private constructor(
    readonly server: WebSocketServer,
    readonly port: number,
    /** The accepted token; tests may change it (e.g. to simulate revocation). */
    public token: string
  ) {
    this.handlers.set("ping", () => ok())
    this.handlers.set("capability.ready", () => ok())
    this.handlers.set("presence.beacon", (payload, peer) =>
      ok({
        entry: {
          instance_id: peer.init.device["device_id"],
          role: peer.init.role,
          ...(payload as object),
          last_seen_at: new Date().toISOString(),
          reason: "periodic"
        }
      })
    )
    this.handlers.set("echo", (payload) => ok(payload))
    this.handlers.set("delay", async (payload) => {
      await sleep((payload as { ms: number }).ms)
      return ok(payload)
    })
    this.handlers.set("never", () => undefined)
    this.handlers.set("fail", () => ({
      ok: false,
      error: { code: "invalid_request", message: "bad payload", details: { issues: ["x"] } }
    }))
  }

  /** Starts a fake gateway accepting `token` (default `test-token`). */
  static async start(options: FakeGatewayOptions = {}): Promise<FakeGateway> {
    let self: FakeGateway | undefined
    const server = new WebSocketServer({
      host: "127.0.0.1",
      port: 0,
      path: "/ws",
      handleProtocols: (protocols) => {
        if (protocols.has(WS_SUBPROTOCOL)) return WS_SUBPROTOCOL
        for (const protocol of protocols) if (!protocol.startsWith(WS_AUTH_SUBPROTOCOL_PREFIX)) return protocol
        return false
      },
      verifyClient: (info, callback) => {
        const reject = self?.rejectUpgrades
        if (reject !== undefined && reject.count > 0) {
          reject.count -= 1
          callback(false, reject.status)
        } else if (self !== undefined && self.unauthorizedTokens.size > 0) {
          const token = self.authenticate(info.req).token
          if (token !== undefined && self.unauthorizedTokens.has(token)) {
            self.refusedUpgrades.push(token)
            callback(false, 401)
          } else callback(true)
        } else callback(true)
      }
    })
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve)
      server.once("error", reject)
    })
    const port = (server.address() as AddressInfo).port
    self = new FakeGateway(server, port, options.token ?? "test-token")
    const gateway = self
    server.on("connection", (socket, request) => gateway.#onConnection(socket, request))
    return gateway
  }

  /** `http://127.0.0.1:<port>` */
  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  /** Resolves with the next peer to complete the handshake (call it before triggering the connection). */
  nextPeer(): Promise<FakePeer> {
    return new Promise((resolve) => this.#peerWaiters.push(resolve))
  }

  /** Number of sockets currently open. */
  get openSockets(): number {
    return this.server.clients.size
  }

  async close(): Promise<void> {
    for (const socket of this.server.clients) socket.terminate()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  /** @internal What the upgrade request carries. */
  authenticate(request: IncomingMessage): UpgradeRecord {
    const authorization = request.headers.authorization
    const cookie = request.headers.cookie
    const origin = request.headers.origin
    const host = request.headers.host
    const offered = (request.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((p) => p.trim())
      .filter((p) => p !== "")
    const negotiated = offered.includes(WS_SUBPROTOCOL)
      ? WS_SUBPROTOCOL
      : offered.find((p) => !p.startsWith(WS_AUTH_SUBPROTOCOL_PREFIX))
    let credential: UpgradeRecord["credential"]
    let token: string | undefined
    const bearer = authorization?.match(/^Bearer (.+)$/)
    const cookieToken = parseCookies(cookie).get("svc_admin_token")
    const authProtocol = offered.find((p) => p.startsWith(WS_AUTH_SUBPROTOCOL_PREFIX))
    if (bearer) {
      credential = "bearer"
      token = bearer[1]
    } else if (cookieToken !== undefined && sameOrigin(origin, host)) {
      credential = "cookie"
      token = cookieToken
    } else if (authProtocol !== undefined) {
      credential = "subprotocol"
      token = Buffer.from(authProtocol.slice(WS_AUTH_SUBPROTOCOL_PREFIX.length), "base64url").toString("utf8")
    }
    return {
      credential,
      token,
      authorization,
      cookie,
      origin,
      host,
      offeredProtocols: offered,
      negotiated
    }
  }

  #onConnection(socket: WebSocket, request: IncomingMessage): void {
    const upgrade = this.authenticate(request)
    this.upgrades.push(upgrade)
    if (upgrade.token !== this.token && (upgrade.token === undefined || !this.acceptedTokens.has(upgrade.token))) {
      socket.close(WsCloseCode.unauthorized, "unauthorized")
      return
    }
    let phase: "init" | "proof" | "ready" = "init"
    let connectionId = ""
    let challenge = ""
    let init: FakePeer["init"] | undefined
    let peer: FakePeer | undefined
    const reply = (envelope: Record<string, unknown>, response: FakeReply) =>
      socket.send(JSON.stringify({ request_id: envelope["request_id"], type: envelope["type"], ...response }))

    socket.on("message", async (data) => {
      let message: Record<string, unknown>
      try {
        message = JSON.parse(data.toString())
      } catch {
        if (phase !== "ready") socket.close(WsCloseCode.protocolViolation, "invalid json")
        return
      }
      const payload = (message["payload"] ?? {}) as Record<string, unknown>
      if (phase === "init") {
        if (message["type"] !== "connect.init") return socket.close(WsCloseCode.protocolViolation, "expected connect.init first")
        if (this.refuseInit !== undefined) return reply(message, { ok: false, error: this.refuseInit })
        if (payload["protocol_rev"] !== GATEWAY_PROTOCOL_REV) return socket.close(WsCloseCode.protocolRevMismatch, "protocol_rev mismatch")
        const device = payload["device"] as Record<string, unknown>
        if (deviceIdFromPubkey(String(device["pubkey"])) !== device["device_id"]) {
          return socket.close(WsCloseCode.deviceIdMismatch, "device_id mismatch")
        }
        init = {
          role: String(payload["role"]),
          device,
          capabilities: (payload["capabilities"] ?? []) as ReadonlyArray<unknown>
        }
        connectionId = randomUUID()
        challenge = randomBytes(32).toString("base64url")
        phase = "proof"
        return reply(message, ok({ connection_id: connectionId, challenge }))
      }
      if (phase === "proof") {
        if (message["type"] !== "connect.proof" || init === undefined) {
          return socket.close(WsCloseCode.protocolViolation, "expected connect.init/connect.proof")
        }
        if (payload["connection_id"] !== connectionId) return socket.close(WsCloseCode.protocolViolation, "connection_id mismatch")
        const transcript = proofTranscript({
          protocolRev: GATEWAY_PROTOCOL_REV,
          role: init.role,
          deviceId: String(init.device["device_id"]),
          connectionId,
          challenge
        })
        if (!verifyProof(String(init.device["pubkey"]), transcript, String(payload["proof"]))) {
          return socket.close(WsCloseCode.invalidProof, "invalid proof")
        }
        phase = "ready"
        peer = new FakePeer(socket, upgrade, init, connectionId)
        this.peers.push(peer)
        reply(message, ok({ client_id: connectionId, device_id: init.device["device_id"], role: init.role }))
        for (const waiter of this.#peerWaiters.splice(0)) waiter(peer)
        return
      }
      if (peer === undefined) return
      if (typeof message["ok"] === "boolean") {
        peer.onResponse(message)
        return
      }
      peer.received.push(message)
      const handler = this.handlers.get(String(message["type"]))
      if (handler === undefined) {
        return reply(message, { ok: false, error: { code: "unsupported_request", message: "request not supported" } })
      }
      const response = await handler(message["payload"], peer)
      if (response !== undefined && socket.readyState === WebSocket.OPEN) {
        reply(message, response)
        this.answered++
      }
    })
  }
}
