/**
 * The `GET /ws` upgrade (gateway-api.md "WebSocket API", "Authentication"):
 * a `ws` WebSocketServer in noServer mode on the gateway's own `http.Server`.
 *
 * - Only `/ws` is upgraded; any other upgrade path is refused (404).
 * - Credentials: Bearer header, same-origin `svc_admin_token` cookie, or the
 *   `svc-auth.<base64url(token)>` subprotocol: the admin token, a device token,
 *   or a scoped node token (`svc-node.v1.…`, resolved by `Pairings`; WS only,
 *   docs/pairing.md). Missing or invalid → 401 before the upgrade. Failed
 *   attempts count against the per-address auth rate limit (429 with
 *   Retry-After once exceeded); successful upgrades do not.
 * - Subprotocol: `svc-v1` when offered; an `svc-auth.*` entry is never echoed.
 * - Each accepted socket runs as one connection actor (`connection.ts`);
 *   closing the layer closes every connection (1001) and the WS server.
 */
import { Effect, FiberSet, Layer } from "effect"
import { type IncomingMessage, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { WebSocketServer } from "ws"
import { AuthService } from "../../services/auth/AuthService.ts"
import { GatewayMetrics } from "../../services/metrics/GatewayMetrics.ts"
import { adminPrincipal, type Principal } from "../../services/auth/principal.ts"
import { Pairings } from "../../services/pairing/Pairings.ts"
import { isNodeToken } from "../../services/pairing/token.ts"
import { Backplane } from "../../services/backplane/Backplane.ts"
import { Presence } from "../../services/ws-sessions/Presence.ts"
import { NodeServer } from "../../layers/http/NodeServer.ts"
import { catchStorageDefect } from "../../layers/storage/repositoryEdge.ts"
import { pathOf } from "../http/path.ts"
import { WsConfig } from "./config.ts"
import { runConnection } from "./connection.ts"
import { selectProtocol, upgradeCredential } from "./credentials.ts"
import { WsDispatch } from "./dispatch.ts"
import { messageTypeLabels } from "./messageTypes.ts"

/** Answers an upgrade request with a plain HTTP error and closes the socket. */
const refuse = (socket: Duplex, status: number, code: string, message: string, headers: Record<string, string> = {}) => {
  if (socket.destroyed) return
  const body = JSON.stringify({ error: code, message })
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")
  socket.on("error", () => {})
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `${extra}Connection: close\r\n\r\n${body}`
  )
}


/** Installs the `/ws` upgrade handler on the {@link NodeServer}; owns every connection fiber. */
export const WsServerLive = Layer.effectDiscard(Effect.gen(function*() {
  const { server } = yield* NodeServer
  const settings = yield* WsConfig
  const auth = yield* AuthService
  const backplane = yield* Backplane
  const presence = yield* Presence
  const pairings = yield* Pairings
  const { dispatch, declared } = yield* WsDispatch
  const metrics = yield* GatewayMetrics
  const env = { settings, backplane, presence, pairings, dispatch, metrics, labels: messageTypeLabels(declared) }

  const fibers = yield* FiberSet.make<void>()
  const run = yield* FiberSet.runtime(fibers)<never>()
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: settings.maxPayloadBytes,
    handleProtocols: (protocols) => selectProtocol(protocols)
  })
  yield* Effect.addFinalizer(() => Effect.callback<void>((resume) => wss.close(() => resume(Effect.void))))

  const accept = (request: IncomingMessage, socket: Duplex, head: Buffer, principal: Principal) =>
    wss.handleUpgrade(request, socket, head, (ws) => {
      run(runConnection(ws, principal, request.socket.remoteAddress, env))
    })

  // Only a presented credential that fails counts against the address (AuthService.authenticateAttempt);
  // a valid one is never refused, and a missing one is not a guess.
  const authenticateUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const credential = upgradeCredential(request)
    if (credential === undefined) {
      return Effect.sync(() => {
        metrics.authFailure("missing_token")
        refuse(socket, 401, "unauthorized", "Provide a token via Authorization: Bearer, the svc_admin_token cookie (same origin) or the svc-auth subprotocol")
      })
    }
    const clientAddress = request.socket.remoteAddress ?? "unknown"
    // A scoped node token (docs/pairing.md) is resolved by the pairing service; its failures count against the
    // same limit as every other credential's. (An admin token that happens to share the prefix stays the admin's.)
    const attempt = isNodeToken(credential.token) && !auth.isAdminToken(credential.token)
      ? auth.countFailures(pairings.authenticateToken(credential.token), clientAddress)
      : auth.authenticateAttempt(credential.token, clientAddress)
    return attempt.pipe(
      Effect.matchEffect({
        onFailure: (error) =>
          error._tag === "TooManyRequests"
            ? Effect.sync(() => {
              metrics.authFailure("rate_limited")
              refuse(socket, 429, "too_many_requests", error.message, { "Retry-After": String(error.retryAfterSeconds) })
            })
            : Effect.sync(() => {
              metrics.authFailure("invalid_token")
              refuse(socket, 401, "unauthorized", "invalid token")
            }),
        onSuccess: (principal) => Effect.sync(() => accept(request, socket, head, principal))
      }),
      // The token store failing (a defect at its repository edge) is not the caller's fault: 503, try again later.
      catchStorageDefect((error) =>
        Effect.logError("ws upgrade: authentication failed").pipe(
          Effect.annotateLogs({ cause: error.message }),
          Effect.andThen(Effect.sync(() => refuse(socket, 503, "service_unavailable", "authentication is unavailable; try again later")))
        )
      )
    )
  }

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (pathOf(request.url ?? "/") !== "/ws") return refuse(socket, 404, "not_found", "only /ws accepts WebSocket upgrades")
    if (!auth.enabled) return accept(request, socket, head, adminPrincipal)
    run(authenticateUpgrade(request, socket, head).pipe(
      Effect.catchCause((cause) =>
        Effect.logError("ws upgrade failed").pipe(
          Effect.annotateLogs({ cause: String(cause) }),
          Effect.andThen(Effect.sync(() => refuse(socket, 401, "unauthorized", "authentication failed")))
        )
      )
    ))
  }

  // The HTTP adapter may have registered its own upgrade handling; the gateway owns upgrades.
  const previous = server.listeners("upgrade")
  server.removeAllListeners("upgrade")
  server.on("upgrade", onUpgrade)
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      server.off("upgrade", onUpgrade)
      for (const l of previous) server.on("upgrade", l as (...args: Array<unknown>) => void)
    })
  )
}))
