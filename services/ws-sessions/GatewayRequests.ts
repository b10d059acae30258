/**
 * Gateway-initiated requests (gateway-api.md: `approval.request`,
 * `task.execute`): send a request envelope to one connection and await its
 * response, correlated by `request_id`, with a timeout. Pending requests fail
 * promptly with `PeerDisconnected` when the connection closes.
 */
import { Context, Deferred, Duration, Effect, Layer } from "effect"
import type { WsResponseEnvelope } from "./schema.ts"
import { ConnectionRegistry } from "./ConnectionRegistry.ts"
import { GatewayMetrics } from "../metrics/GatewayMetrics.ts"
import {
  PeerDisconnected,
  PeerNotConnected,
  PeerRequestFailed,
  type PeerRequestError,
  PeerRequestTimeout
} from "./errors.ts"

interface Pending {
  readonly connectionId: string
  readonly requestId: string
  readonly deferred: Deferred.Deferred<unknown, PeerRequestError>
}

/** Pending requests are keyed by connection and request id: one `request_id` (e.g. `approval-<id>`) may be asked of several peers. */
const pendingKey = (connectionId: string, requestId: string): string => `${connectionId}\u0000${requestId}`

/** Default time to wait for a peer's answer. */
const DEFAULT_PEER_REQUEST_TIMEOUT = Duration.seconds(30)

/** Sends requests to peers and routes their responses back. */
export class GatewayRequests extends Context.Service<GatewayRequests, {
  /**
   * Sends `{request_id, type, payload}` to `connectionId` and waits for the
   * peer's response: its `result` on `ok:true`, `PeerRequestFailed` on
   * `ok:false`, `PeerRequestTimeout` after `timeout` (default 30 s),
   * `PeerDisconnected` if the connection closes first, `PeerNotConnected`
   * when it is not connected. `requestId` defaults to `<type>-<uuid>`.
   */
  readonly request: (
    connectionId: string,
    type: string,
    payload: unknown,
    options?: { readonly timeout?: Duration.Input | undefined; readonly requestId?: string | undefined }
  ) => Effect.Effect<unknown, PeerRequestError>
  /** Routes a response envelope from `connectionId`; false when no request is waiting for it. */
  readonly resolve: (connectionId: string, response: WsResponseEnvelope) => boolean
  /** Fails every pending request of a closed connection. */
  readonly connectionClosed: (connectionId: string) => void
  /** Number of requests awaiting an answer. */
  readonly pendingCount: () => number
}>()("svc-gateway/ws-sessions/GatewayRequests") {
  /** Needs {@link ConnectionRegistry}. */
  static readonly layerNoDeps = Layer.effect(
    GatewayRequests,
    Effect.gen(function*() {
      const registry = yield* ConnectionRegistry
      const metrics = yield* GatewayMetrics
      const pending = new Map<string, Pending>()

      const request = (
        connectionId: string,
        type: string,
        payload: unknown,
        options?: { readonly timeout?: Duration.Input | undefined; readonly requestId?: string | undefined }
      ): Effect.Effect<unknown, PeerRequestError> =>
        Effect.suspend(() => {
          const connection = registry.get(connectionId)
          if (connection === undefined) {
            return Effect.fail(new PeerNotConnected({ connectionId, message: `connection ${connectionId} is not connected` }))
          }
          const requestId = options?.requestId ?? `${type}-${crypto.randomUUID()}`
          const deferred = Deferred.makeUnsafe<unknown, PeerRequestError>()
          const key = pendingKey(connectionId, requestId)
          pending.set(key, { connectionId, requestId, deferred })
          if (!connection.send(JSON.stringify({ request_id: requestId, type, payload }))) {
            pending.delete(key)
            return Effect.fail(
              new PeerDisconnected({ connectionId, requestId, message: `connection ${connectionId} closed before the request was sent` })
            )
          }
          metrics.wsMessage(type, "out")
          return Deferred.await(deferred).pipe(
            Effect.timeoutOrElse({
              duration: options?.timeout ?? DEFAULT_PEER_REQUEST_TIMEOUT,
              orElse: () =>
                Effect.fail(new PeerRequestTimeout({ connectionId, requestId, message: `no answer to ${type} within the timeout` }))
            }),
            Effect.ensuring(Effect.sync(() => {
              if (pending.get(key)?.deferred === deferred) pending.delete(key)
            }))
          )
        })

      return GatewayRequests.of({
        request,
        resolve: (connectionId, response) => {
          const key = pendingKey(connectionId, response.request_id)
          const entry = pending.get(key)
          if (entry === undefined) return false
          pending.delete(key)
          Deferred.doneUnsafe(
            entry.deferred,
            response.ok
              ? Effect.succeed(response.result)
              : Effect.fail(
                new PeerRequestFailed({
                  connectionId,
                  requestId: response.request_id,
                  code: response.error?.code ?? "unknown_error",
                  message: response.error?.message ?? "the peer reported an error",
                  details: response.error?.details
                })
              )
          )
          return true
        },
        connectionClosed: (connectionId) => {
          for (const [key, entry] of pending) {
            if (entry.connectionId !== connectionId) continue
            pending.delete(key)
            Deferred.doneUnsafe(
              entry.deferred,
              Effect.fail(new PeerDisconnected({ connectionId, requestId: entry.requestId, message: `connection ${connectionId} closed` }))
            )
          }
        },
        pendingCount: () => pending.size
      })
    })
  )

  /** Wired: on this instance's {@link ConnectionRegistry}. */
  static readonly layer = GatewayRequests.layerNoDeps.pipe(Layer.provide(ConnectionRegistry.layer))
}
