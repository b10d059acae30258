/**
 * Gateway-initiated requests (gateway-api.md: `approval.request`,
 * `task.execute`): send a request envelope to one connection and await its
 * response, correlated by `request_id`, with a timeout. Pending requests fail
 * promptly with `PeerDisconnected` when the connection closes. A view over
 * the {@link Backplane} (which routes the request and its reply).
 */
import { Context, Effect, Layer } from "effect"
import { Backplane } from "../backplane/Backplane.ts"
import type { PeerRequestError } from "../backplane/errors.ts"
import type { PeerResponse, RequestOptions } from "../backplane/schema.ts"

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
    options?: RequestOptions
  ) => Effect.Effect<unknown, PeerRequestError>
  /** Routes a response envelope from `connectionId`; false when no request is waiting for it. */
  readonly resolve: (connectionId: string, response: PeerResponse) => boolean
  /** Number of requests awaiting an answer. */
  readonly pendingCount: () => number
}>()("svc-gateway/ws-sessions/GatewayRequests") {
  /** A view over the {@link Backplane}; needs it. */
  static readonly layerNoDeps = Layer.effect(
    GatewayRequests,
    Effect.gen(function*() {
      const backplane = yield* Backplane
      // A view of the Backplane: its methods, traced there (`Backplane.request`, …).
      return GatewayRequests.of({ request: backplane.request, resolve: backplane.reply, pendingCount: backplane.pendingCount })
    })
  )

  /** Wired: on {@link Backplane.layer}. */
  static readonly layer = GatewayRequests.layerNoDeps.pipe(Layer.provide(Backplane.layer))
}
