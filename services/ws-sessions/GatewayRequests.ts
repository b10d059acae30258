/**
 * Gateway-initiated requests (gateway-api.md: `approval.request`,
 * `task.execute`): send a request envelope to one connection and await its
 * response, correlated by `request_id`, with a timeout. Pending requests fail
 * promptly with `PeerDisconnected` when the connection closes. A view over
 * the {@link Backplane} (which routes the request and its reply).
 */
import { Context, Effect, Layer } from "effect"
import { Backplane } from "../backplane/Backplane.ts"

/** Sends requests to peers and routes their responses back (the {@link Backplane}'s methods, documented there). */
export class GatewayRequests extends Context.Service<GatewayRequests, {
  /** `Backplane.request`: sends `{request_id, type, payload}` to a connection and waits for the peer's response. */
  readonly request: Backplane["Service"]["request"]
  /** `Backplane.reply`: routes a response envelope from a connection; false when no request is waiting for it. */
  readonly resolve: Backplane["Service"]["reply"]
  /** Number of requests awaiting an answer. */
  readonly pendingCount: Backplane["Service"]["pendingCount"]
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
