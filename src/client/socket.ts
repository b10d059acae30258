/**
 * The WebSocket seam of the client core: the core opens connections through a {@link GatewaySocketFactory}
 * and never names a WebSocket implementation. {@link webSocketFactory} adapts any constructor with the
 * standard WHATWG `WebSocket` interface (`globalThis.WebSocket` in browsers, Deno and Node 22+);
 * `nodeSocket.ts` adapts the `ws` package for Node (headers, upgrade status, terminate).
 */
import { utf8Text } from "./encoding.ts"

/** What the core asks to open. */
export interface SocketOpenRequest {
  readonly url: URL
  /** Subprotocols to offer (may be empty). */
  readonly protocols: ReadonlyArray<string>
  /** Upgrade request headers (`Authorization`, `Cookie`); empty unless the factory has `headers: true`. */
  readonly headers: Readonly<Record<string, string>>
  /** `Origin` to send (cookie credentials), when the factory can set it. */
  readonly origin: string | undefined
  /** Time allowed for the upgrade itself, in milliseconds. */
  readonly handshakeTimeoutMs: number
}

/** How a socket closed. */
export interface SocketCloseInfo {
  /** Close code (1006 when the connection dropped without a close frame or never opened). */
  readonly code: number
  readonly reason: string
  /** The gateway answered the upgrade with this HTTP status instead of 101 (when the transport can tell). */
  readonly httpStatus?: number | undefined
  /** The last transport error before the close, if any. */
  readonly error?: Error | undefined
}

/** Callbacks a factory calls for one socket: `open` at most once, then `message`s, then `close` exactly once. */
export interface SocketListeners {
  readonly open: () => void
  readonly message: (text: string) => void
  readonly close: (info: SocketCloseInfo) => void
}

/** One connection as the core drives it. */
export interface GatewaySocket {
  /** Whether frames can be sent now (`readyState === OPEN`). */
  readonly isOpen: () => boolean
  /** The negotiated subprotocol (`""` when none). */
  readonly protocol: () => string
  /** Sends a text frame; `onError` is called when the transport reports the send failed. */
  readonly send: (text: string, onError: (error: Error) => void) => void
  /** Starts the closing handshake. */
  readonly close: (code: number, reason: string) => void
  /** Drops the connection at once (where the transport allows; otherwise closes it). */
  readonly terminate: () => void
}

/**
 * Opens sockets for the core. `headers: false` transports (browsers) cannot send upgrade headers: the client
 * then authenticates with the `subprotocol` credential transport.
 *
 * @throws anything: the core reports a throw of `open` as `invalid_options` "cannot open the WebSocket".
 */
export interface GatewaySocketFactory {
  readonly headers: boolean
  readonly open: (request: SocketOpenRequest, listeners: SocketListeners) => GatewaySocket
}

/** The part of the WHATWG `WebSocket` the adapter uses. */
export interface WhatwgWebSocket {
  readonly readyState: number
  readonly protocol: string
  binaryType: string
  send(data: string): void
  close(code?: number, reason?: string): void
  addEventListener(type: string, listener: (event: any) => void): void
}

/** A constructor with the WHATWG `WebSocket` signature. */
export type WebSocketConstructor = new (url: string, protocols?: string | Array<string>) => WhatwgWebSocket

const OPEN = 1

/** The HTTP status in a runtime's message about a refused upgrade (Deno: `Invalid status code: 401`). */
const UPGRADE_STATUS = /\bstatus code:? (\d{3})\b/i

/**
 * Adapts a WHATWG `WebSocket` constructor (default `globalThis.WebSocket`). Such a transport sends no custom
 * headers, cannot tell the HTTP status of a refused upgrade (that is a close 1006) and `terminate` is `close`.
 *
 * @throws TypeError (from `open`) when no constructor is given and `globalThis.WebSocket` is missing.
 */
export const webSocketFactory = (constructor?: WebSocketConstructor): GatewaySocketFactory => ({
  headers: false,
  open: (request, listeners) => {
    const Ctor = constructor ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket
    if (Ctor === undefined) throw new TypeError("no WebSocket constructor: pass one (e.g. the ws package's) as `socket`")
    const socket = new Ctor(request.url.href, [...request.protocols])
    socket.binaryType = "arraybuffer"
    let lastError: Error | undefined
    let closed = false
    let opened = false
    const finish = (info: SocketCloseInfo) => {
      if (closed) return
      closed = true
      listeners.close(info)
    }
    socket.addEventListener("open", () => {
      opened = true
      listeners.open()
    })
    socket.addEventListener("message", (event: { data: unknown }) => {
      const data = event.data
      listeners.message(typeof data === "string" ? data : utf8Text(data as ArrayBuffer))
    })
    socket.addEventListener("error", (event: { message?: unknown; error?: unknown }) => {
      lastError = event.error instanceof Error
        ? event.error
        : new Error(typeof event.message === "string" && event.message !== "" ? event.message : "WebSocket error")
    })
    // A connection that failed (refused upgrade, network error) closes with 1006 by the standard; some
    // runtimes report 0: normalized to 1006. Browsers hide the status of a refused upgrade; Deno names it
    // in the error ("Invalid status code: 401"), which is read as the upgrade's HTTP status.
    socket.addEventListener("close", (event: { code: number; reason: string }) => {
      const status = opened ? undefined : UPGRADE_STATUS.exec(lastError?.message ?? "")?.[1]
      finish({
        code: event.code >= 1000 ? event.code : 1006,
        reason: event.reason,
        error: lastError,
        httpStatus: status === undefined ? undefined : Number(status)
      })
    })
    return {
      isOpen: () => socket.readyState === OPEN && !closed,
      protocol: () => socket.protocol,
      send: (text, onError) => {
        try {
          socket.send(text)
        } catch (error) {
          onError(error instanceof Error ? error : new Error(String(error)))
        }
      },
      close: (code, reason) => socket.close(code, reason),
      terminate: () => {
        try {
          socket.close(1000)
        } catch {
          // already closing
        }
      }
    }
  }
})
