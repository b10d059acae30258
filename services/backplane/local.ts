/**
 * The in-process backplane (`Backplane.layerLocal`): one gateway instance.
 * The directory is a `Map` in connection order; an event is serialized once
 * and queued on each recipient's outbound mailbox (`ConnectionHandle.send`);
 * a gateway-initiated request waits on a `Deferred` keyed by connection and
 * `request_id`. Messages written are counted in `ws_messages_total`.
 *
 * @module
 */
import { Clock, Deferred, Duration, Effect } from "effect"
import { GatewayMetrics } from "../metrics/GatewayMetrics.ts"
import type { Backplane } from "./Backplane.ts"
import { eventEnvelope, inAudience } from "./envelope.ts"
import { PeerDisconnected, PeerNotConnected, PeerRequestFailed, type PeerRequestError, PeerRequestTimeout } from "./errors.ts"
import type { ConnectionHandle, Published } from "./schema.ts"

interface Pending {
  readonly connectionId: string
  readonly requestId: string
  readonly deferred: Deferred.Deferred<unknown, PeerRequestError>
}

/** Pending requests are keyed by connection and request id: one `request_id` (e.g. `approval-<id>`) may be asked of several peers. */
const pendingKey = (connectionId: string, requestId: string): string => `${connectionId}\u0000${requestId}`

/** Default time to wait for a peer's answer. */
export const DEFAULT_PEER_REQUEST_TIMEOUT = Duration.seconds(30)

/**
 * The in-process backplane and, for a distributed layer built over it
 * (services/backplane/postgres.ts), the way to write an event serialized
 * elsewhere to this instance's own connections.
 */
export interface LocalDelivery {
  readonly backplane: Backplane["Service"]
  /** This instance's live connections, in connection order. */
  readonly handles: () => Iterable<ConnectionHandle>
  /** This instance's live connection `connectionId`, if any. */
  readonly handle: (connectionId: string) => ConnectionHandle | undefined
  /** Queues `text` (an event of `type`, already serialized) on each connection given; how many took it (counted in `ws_messages_total`). */
  readonly write: (recipients: Iterable<ConnectionHandle | undefined>, type: string, text: string) => number
}

/** Builds the in-process backplane (reads the metrics recorder once). */
export const makeLocalBackplane: Effect.Effect<Backplane["Service"]> = Effect.suspend(() =>
  Effect.map(makeLocalDelivery, (local) => local.backplane)
)

/** Builds the in-process backplane with its {@link LocalDelivery} parts. */
export const makeLocalDelivery: Effect.Effect<LocalDelivery> = Effect.gen(function*() {
  const metrics = yield* GatewayMetrics
  const connections = new Map<string, ConnectionHandle>()
  const pending = new Map<string, Pending>()

  const failPending = (connectionId: string): void => {
    for (const [key, entry] of pending) {
      if (entry.connectionId !== connectionId) continue
      pending.delete(key)
      Deferred.doneUnsafe(
        entry.deferred,
        Effect.fail(new PeerDisconnected({ connectionId, requestId: entry.requestId, message: `connection ${connectionId} closed` }))
      )
    }
  }

  const write = (recipients: Iterable<ConnectionHandle | undefined>, type: string, text: string): number => {
    let delivered = 0
    for (const connection of recipients) {
      if (connection !== undefined && connection.send(text)) delivered++
    }
    if (delivered > 0) metrics.wsMessage(type, "out", delivered)
    return delivered
  }

  /** Serializes the event once and queues it on each included connection. */
  const deliver = (
    recipients: Iterable<ConnectionHandle | undefined>,
    type: string,
    payload: unknown,
    scope: unknown,
    include: (connection: ConnectionHandle) => boolean
  ) =>
    Effect.map(Clock.currentTimeMillis, (now): Published => {
      const { envelope, text } = eventEnvelope(type, payload, now, scope)
      return { envelope, delivered: write(filtered(recipients, include), type, text) }
    })

  function* filtered(recipients: Iterable<ConnectionHandle | undefined>, include: (connection: ConnectionHandle) => boolean) {
    for (const connection of recipients) if (connection !== undefined && include(connection)) yield connection
  }
  function* byId(ids: Iterable<string>): Iterable<ConnectionHandle | undefined> {
    for (const id of ids) yield connections.get(id)
  }
  const always = () => true

  const request: Backplane["Service"]["request"] = /* hot path (every request or message): no span, docs/performance.md "Spans on the hot path" */ ((connectionId, type, payload, options) => {
    const connection = connections.get(connectionId)
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

  const backplane: Backplane["Service"] = {
    register: Effect.fn("Backplane.register")((connection) =>
      Effect.sync(() => void connections.set(connection.connectionId, connection))
    ),
    unregister: Effect.fn("Backplane.unregister")((connectionId) =>
      Effect.sync(() => {
        failPending(connectionId)
        connections.delete(connectionId)
      })
    ),
    // lookup, connections, size, reply and pendingCount answer plain values at once (no Effect, so no span).
    lookup: (connectionId) => connections.get(connectionId),
    connections: () => [...connections.values()],
    size: () => connections.size,
    setReady: Effect.fn("Backplane.setReady")((connectionId, ready) =>
      Effect.sync(() => {
        const connection = connections.get(connectionId)
        if (connection === undefined) return
        connection.readyCapabilities.clear()
        for (const id of ready) connection.readyCapabilities.add(id)
      })
    ),
    publish: /* hot path (every request or message): no span, docs/performance.md "Spans on the hot path" */ ((audience, type, payload, scope) =>
      deliver(connections.values(), type, payload, scope, (connection) => inAudience(connection, audience))
    ),
    sendTo: /* hot path (every request or message): no span, docs/performance.md "Spans on the hot path" */ ((connectionIds, type, payload, scope) =>
      deliver(byId(connectionIds), type, payload, scope, always)
    ),
    close: Effect.fn("Backplane.close")((connectionId, code, reason) =>
      Effect.sync(() => connections.get(connectionId)?.close(code, reason))
    ),
    request,
    reply: (connectionId, response) => {
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
    pendingCount: () => pending.size
  }
  return { backplane, handles: () => connections.values(), handle: (id) => connections.get(id), write }
})
