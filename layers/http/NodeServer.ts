/**
 * The gateway's `node:http` server, shared by the HTTP adapter and the `/ws`
 * upgrade, with the protections a public listener needs (docs/operations.md
 * "Connections and shutdown"):
 *
 * - `headersTimeout` / `requestTimeout`: a client must send its headers, and
 *   then its whole request, within these (Node answers 408 or closes);
 *   checked every second, so a slow client is cut within a second of its
 *   deadline instead of Node's default 30 s tick.
 * - `maxConnections`: connections above the cap are dropped at accept.
 * - Drain ({@link NodeServer} `drain`, run by {@link NodeServerDrainLive} when
 *   the gateway shuts down): every response from then on carries
 *   `Connection: close`; idle keep-alive connections, connections still
 *   sending their headers, and connections whose request was answered but
 *   which are still sending its body are closed at once; a request still
 *   being answered runs to completion, but if its body is still arriving it
 *   gets {@link DRAIN_BODY_GRACE_MS} to finish sending it. Upgraded
 *   (WebSocket) connections are left to the WS layer, which closes them 1001.
 */
import { Context, Effect, Layer } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { GatewayConfig } from "../config.ts"

/** Limits of the listener (milliseconds and connection counts). */
export interface NodeServerOptions {
  /** Time to receive a request's headers (Node answers 408 after it). */
  readonly headersTimeoutMs: number
  /** Time to receive a whole request, headers and body (408 or close after it). */
  readonly requestTimeoutMs: number
  /** Most open connections (HTTP and WebSocket); more are dropped at accept. */
  readonly maxConnections: number
}

/** What {@link NodeServer} `drain` did. */
export interface DrainReport {
  /** Connections closed at once (idle, headers still arriving, answered but still sending a body). */
  readonly closed: number
  /** Requests still being answered, left to finish. */
  readonly inFlight: number
}

/** The server plus its shutdown hook. */
export class NodeServer extends Context.Service<NodeServer, {
  readonly server: Server
  /** True once {@link drain} ran. */
  readonly isDraining: () => boolean
  /**
   * Starts draining: `Connection: close` on every response not yet started,
   * closes idle and slow connections now. Returns how many connections it
   * closed and how many requests it lets finish (zeros when already draining).
   */
  readonly drain: () => DrainReport
}>()("svc-gateway/layers/http/NodeServer") {}

// Node's own bookkeeping on a connection: the parser (null once upgraded or freed)
// and the response being written on it. Stable since Node 0.x; read only.
interface SocketInternals {
  readonly parser?: unknown
  readonly _httpMessage?: (ServerResponse & { readonly req?: IncomingMessage }) | null
}

/** Time a request still sending its body at drain gets to finish it, in milliseconds. */
export const DRAIN_BODY_GRACE_MS = 5000

const closeOnDrain = (_request: IncomingMessage, response: ServerResponse): void => {
  if (!response.headersSent) response.setHeader("connection", "close")
}

/** A fresh server with the given limits; connections are tracked (no per-request work) for the drain. */
const makeNodeServer = (options: NodeServerOptions): NodeServer["Service"] => {
  const server = createServer({
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    connectionsCheckingInterval: 1000
  })
  server.maxConnections = options.maxConnections
  const sockets = new Set<Socket>()
  let draining = false
  server.on("connection", (socket: Socket) => {
    if (draining) return void socket.destroy()
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })
  const drain = (): DrainReport => {
    if (draining) return { closed: 0, inFlight: 0 }
    draining = true
    let closed = 0
    let inFlight = 0
    server.prependListener("request", closeOnDrain)
    for (const socket of sockets) {
      const internals = socket as unknown as SocketInternals
      if (internals.parser === null || internals.parser === undefined) continue // upgraded: the WS layer's
      const response = internals._httpMessage
      if (response === undefined || response === null) {
        socket.destroy() // idle keep-alive, or headers still arriving
        closed++
        continue
      }
      inFlight++
      if (!response.headersSent) response.setHeader("connection", "close")
      const request = response.req
      if (request !== undefined && !request.complete) {
        // Body still arriving: a short grace, then the connection goes.
        setTimeout(() => {
          if (!request.complete) socket.destroy()
        }, DRAIN_BODY_GRACE_MS).unref()
      }
    }
    return { closed, inFlight }
  }
  return { server, isDraining: () => draining, drain }
}

/** {@link NodeServer} with the given limits. */
export const layer = (options: NodeServerOptions): Layer.Layer<NodeServer> =>
  Layer.sync(NodeServer, () => makeNodeServer(options))

/** {@link NodeServer} with the limits of `GatewayConfig` (`SVC_HEADERS_TIMEOUT_MS`, `SVC_REQUEST_TIMEOUT_MS`, `SVC_MAX_CONNECTIONS`). */
export const layerFromConfig: Layer.Layer<NodeServer, never, GatewayConfig> = Layer.unwrap(Effect.map(GatewayConfig, (s) =>
  layer({ headersTimeoutMs: s.headersTimeoutMs, requestTimeoutMs: s.requestTimeoutMs, maxConnections: s.maxConnections })))

/**
 * Drains {@link NodeServer} when released. Build it after the HTTP server
 * layer (so it is released first): the drain then starts before the server
 * stops listening and waits for in-flight requests.
 */
export const NodeServerDrainLive: Layer.Layer<never, never, NodeServer> = Layer.effectDiscard(Effect.gen(function*() {
  const node = yield* NodeServer
  yield* Effect.addFinalizer(() =>
    Effect.flatMap(Effect.sync(node.drain), (report) =>
      Effect.logInfo("draining HTTP connections").pipe(
        Effect.annotateLogs({ closed: report.closed, in_flight: report.inFlight })
      ))
  )
}))
