/**
 * One WebSocket connection as an actor: a fiber that runs the handshake v2,
 * then reads envelopes and dispatches requests (each request in its own child
 * fiber, so a slow handler does not block the connection), a bounded
 * outbound mailbox (the socket's send queue, limited in messages and bytes;
 * overflow closes 1013), and a heartbeat (ping frames; silence → terminate).
 * A defect anywhere in the actor (its own code, a handler, a service it
 * calls) is never silent: the cause is logged with the connection id and the
 * socket closes with 1011, so the peer reconnects. Typed failures of a
 * request are answered `ok:false` and the connection stays.
 * Close codes: docs/websocket.md. Metrics (docs/operations.md "Metrics"):
 * `ws_connections_active{role}` while registered, and `ws_messages_total`
 * for every envelope in and every response and error event out (events and
 * gateway-initiated requests are counted where they are sent).
 */
import { Cause, Clock, Data, Duration, Effect, Exit, FiberSet, Queue, Result, Schedule } from "effect"
import type { WebSocket } from "ws"
import { type MetricsRecorder, UNKNOWN_TYPE } from "../../services/metrics/GatewayMetrics.ts"
import type { Principal } from "../../services/auth/principal.ts"
import type { Backplane } from "../../services/backplane/Backplane.ts"
import { eventEnvelope } from "../../services/backplane/envelope.ts"
import type { ConnectionHandle } from "../../services/backplane/schema.ts"
import { ErrorEvent } from "../../services/ws-sessions/events.ts"
import { PAIRING_CLOSE_REASON, type Pairings } from "../../services/pairing/Pairings.ts"
import type { Presence } from "../../services/ws-sessions/Presence.ts"
import { makeDecoder } from "../../services/shared/decode.ts"
import { acceptInit, checkProof, isRefusal } from "../../services/ws-sessions/handshake.ts"
import {
  WsCloseCode,
  WsConnectInitRequest,
  WsConnectProofRequest,
  WsRequestEnvelope,
  WsResponseEnvelope
} from "../../services/ws-sessions/schema.ts"
import type { WsSettings } from "./config.ts"
import { type DispatchOutcome, toWsError } from "./dispatch.ts"
import type { MessageTypeLabels } from "./messageTypes.ts"

/** Ends the connection with a WebSocket close code and reason. */
class CloseConnection extends Data.TaggedError("CloseConnection")<{ readonly code: number; readonly reason: string }> {}

const close = (code: number, reason: string) => Effect.fail(new CloseConnection({ code, reason }))

/** Services and settings a connection needs (resolved once by the WS server layer). */
export interface ConnectionEnv {
  readonly settings: WsSettings
  /** Registers this connection in the directory and routes the peer's responses to gateway-initiated requests. */
  readonly backplane: Backplane["Service"]
  readonly presence: Presence["Service"]
  /** Told of every node that completed the handshake (its pairing is created, refreshed or reopened). */
  readonly pairings: Pairings["Service"]
  readonly dispatch: (connection: ConnectionHandle, request: WsRequestEnvelope) => Effect.Effect<DispatchOutcome>
  readonly metrics: MetricsRecorder
  /** The metric labels of the declared message types. */
  readonly labels: MessageTypeLabels
}

const decodeEnvelope = makeDecoder(WsRequestEnvelope, { label: "message" })
const decodeResponse = makeDecoder(WsResponseEnvelope, { label: "message" })
const decodeInit = makeDecoder(WsConnectInitRequest, { label: "payload" })
const decodeProof = makeDecoder(WsConnectProofRequest, { label: "payload" })

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return PARSE_FAILED
  }
}
const PARSE_FAILED = Symbol("parse-failed")

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const rawToText = (data: unknown): string =>
  Buffer.isBuffer(data)
    ? data.toString("utf8")
    : Array.isArray(data)
    ? Buffer.concat(data as Array<Buffer>).toString("utf8")
    : Buffer.from(data as ArrayBuffer).toString("utf8")

/**
 * Runs one accepted connection until it closes. Never fails; always leaves
 * the backplane clean (out of the directory, its pending gateway requests failed).
 */
export const runConnection = (
  ws: WebSocket,
  principal: Principal,
  remoteAddress: string | undefined,
  env: ConnectionEnv
): Effect.Effect<void> => {
  let registeredId: string | undefined
  let registeredRole: "client" | "node" | undefined
  let closed = false
  const { metrics } = env
  const received = (label: string) => metrics.wsMessage(label, "in")
  const closeSocket = (code: number, reason: string) => {
    if (closed) return
    closed = true
    try {
      ws.close(code, reason)
    } catch {
      ws.terminate()
    }
  }
  /** Logs a defect of this connection and closes it 1011 (the one way a connection ends on a bug). */
  const crash = (cause: Cause.Cause<unknown>, where: string, fields: Record<string, unknown> = {}) =>
    Effect.logError("ws connection failed").pipe(
      Effect.annotateLogs({ connection_id: registeredId ?? "(handshake)", where, ...fields, cause: Cause.pretty(cause) }),
      Effect.andThen(Effect.sync(() => closeSocket(WsCloseCode.internalError, "internal error")))
    )
  return Effect.scoped(Effect.gen(function*() {
    const { settings } = env
    const inbound = yield* Queue.bounded<string, Cause.Done>(settings.mailboxCapacity)
    const clock = yield* Clock.clockWith(Effect.succeed)
    let lastSeen = clock.currentTimeMillisUnsafe()

    // Outbound mailbox: the socket's own send queue, bounded by the number of
    // messages not yet written (mailboxCapacity) and by buffered bytes
    // (maxBufferedBytes). Writing directly avoids a fiber hop per message;
    // overflow closes the connection as a slow consumer (1013). A message sent
    // while nothing is buffered goes to the kernel at once, so it is written
    // without a `written` callback (the common case: no per-message callback);
    // only messages queued behind unwritten bytes are counted until written.
    let unwritten = 0
    const written = () => {
      unwritten--
    }
    const send = (text: string): boolean => {
      if (closed) return false
      const buffered = ws.bufferedAmount
      if (buffered === 0) {
        ws.send(text)
        return true
      }
      if (unwritten >= settings.mailboxCapacity || buffered > settings.maxBufferedBytes) {
        closeSocket(WsCloseCode.slowConsumer, "slow consumer")
        return false
      }
      unwritten++
      ws.send(text, written)
      return true
    }
    const respond = (request_id: string, type: string, outcome: DispatchOutcome) => {
      const sent = send(JSON.stringify(outcome.ok ? { request_id, type, ...outcome } : { request_id, type, ok: false, error: outcome.error }))
      if (sent) metrics.wsMessage(env.labels.requestTypeLabel(type), "out")
      return sent
    }
    const errorEvent = (code: string, message: string): void => {
      if (send(eventEnvelope(ErrorEvent.type, { code, message }, clock.currentTimeMillisUnsafe()).text)) {
        metrics.wsMessage(ErrorEvent.type, "out")
      }
    }

    // Before the handshake completes, messages queue for the handshake fiber;
    // afterwards `onEnvelope` handles each as it arrives (no fiber hop). A throw
    // there is a defect of this connection, never of the socket library's callback.
    let onEnvelope: ((text: string) => void) | undefined
    const runDetached = yield* FiberSet.makeRuntime<never>()
    ws.on("message", (data) => {
      lastSeen = clock.currentTimeMillisUnsafe()
      if (onEnvelope === undefined) {
        if (!Queue.offerUnsafe(inbound, rawToText(data))) closeSocket(WsCloseCode.slowConsumer, "too many pending messages")
        return
      }
      try {
        onEnvelope(rawToText(data))
      } catch (defect) {
        runDetached(crash(Cause.die(defect), "envelope"))
      }
    })
    ws.on("pong", () => {
      lastSeen = clock.currentTimeMillisUnsafe()
    })
    ws.on("close", () => {
      closed = true
      Queue.endUnsafe(inbound)
    })
    ws.on("error", () => {
      // 'close' follows; errors such as 1009 (maxPayload) are reported through the close code.
    })

    // Heartbeat: WS ping frames; a peer silent for pongTimeout is terminated.
    const pongTimeoutMs = Duration.toMillis(settings.pongTimeout)
    yield* Effect.forkScoped(Effect.repeat(
      Effect.sync(() => {
        if (closed) return
        if (clock.currentTimeMillisUnsafe() - lastSeen > pongTimeoutMs) {
          closed = true
          ws.terminate()
          return
        }
        try {
          ws.ping()
        } catch {
          // the socket is closing
        }
      }),
      Schedule.spaced(settings.pingInterval)
    ))

    const next = Effect.mapError(Queue.take(inbound), () => new CloseConnection({ code: 1000, reason: "" }))

    // --- Handshake v2 -------------------------------------------------------------------------
    const handshake = Effect.gen(function*() {
      const first = parse(yield* next)
      const type = isObject(first) ? first.type : undefined
      received(env.labels.requestTypeLabel(type))
      if (first === PARSE_FAILED) return yield* close(WsCloseCode.protocolViolation, "invalid json")
      if (type === "connect") {
        return yield* close(WsCloseCode.protocolViolation, "legacy connect is deprecated; use connect.init and connect.proof")
      }
      if (type !== "connect.init") return yield* close(WsCloseCode.protocolViolation, "expected connect.init first")
      const envelope = decodeEnvelope(first)
      if (Result.isFailure(envelope)) return yield* close(WsCloseCode.protocolViolation, "invalid connect.init envelope")
      const requestId = envelope.success.request_id
      const init = decodeInit(envelope.success.payload ?? {})
      if (Result.isFailure(init)) {
        respond(requestId, "connect.init", { ok: false, error: { code: "invalid_request", message: init.failure } })
        return yield* close(WsCloseCode.protocolViolation, "invalid connect.init")
      }
      const { role, device, capabilities } = init.success
      const accepted = acceptInit(init.success, principal)
      if (isRefusal(accepted)) {
        if (accepted.response !== undefined) respond(requestId, "connect.init", { ok: false, error: accepted.response })
        return yield* close(accepted.closeCode, accepted.reason)
      }
      const { deviceId: derived, challenge } = accepted
      const connectionId = crypto.randomUUID()
      respond(requestId, "connect.init", { ok: true, result: { connection_id: connectionId, challenge } })

      const second = parse(yield* next)
      received(env.labels.requestTypeLabel(isObject(second) ? second.type : undefined))
      if (second === PARSE_FAILED) return yield* close(WsCloseCode.protocolViolation, "invalid json")
      if (!isObject(second) || second.type !== "connect.proof") {
        return yield* close(WsCloseCode.protocolViolation, "expected connect.proof")
      }
      const proofEnvelope = decodeEnvelope(second)
      if (Result.isFailure(proofEnvelope)) return yield* close(WsCloseCode.protocolViolation, "invalid connect.proof envelope")
      const proof = decodeProof(proofEnvelope.success.payload ?? {})
      if (Result.isFailure(proof)) return yield* close(WsCloseCode.protocolViolation, "invalid connect.proof")
      const refused = checkProof({
        init: init.success,
        deviceId: derived,
        connectionId,
        challenge,
        proofConnectionId: proof.success.connection_id,
        proof: proof.success.proof
      })
      if (refused !== undefined) return yield* close(refused.closeCode, refused.reason)
      const now = yield* Clock.currentTimeMillis
      const handle: ConnectionHandle = {
        connectionId,
        role,
        deviceId: derived,
        device: { label: device.label, platform: device.platform, version: device.version, mode: device.mode },
        principal,
        capabilities,
        readyCapabilities: new Set(),
        connectedAt: new Date(now).toISOString(),
        remoteAddress,
        send,
        close: closeSocket
      }
      respond(proofEnvelope.success.request_id, "connect.proof", {
        ok: true,
        result: { client_id: connectionId, device_id: derived, role }
      })
      return handle
    })

    const handle = yield* handshake.pipe(
      Effect.timeoutOrElse({
        duration: settings.handshakeTimeout,
        orElse: () => close(WsCloseCode.handshakeTimeout, "handshake timeout")
      })
    )
    registeredId = handle.connectionId
    yield* env.backplane.register(handle)
    registeredRole = handle.role
    metrics.wsConnection(handle.role, 1)
    // A node's pairing (docs/pairing.md), after registering: an approval that follows at once finds this
    // connection for its token, and a revocation that commits from here on closes it. A scoped-token
    // connection whose pairing is no longer approved under that token is closed now.
    if (handle.role === "node") {
      const pairing = yield* env.pairings.nodeConnected({
        node_id: handle.deviceId,
        label: handle.device.label,
        capabilities: handle.capabilities,
        metadata: { platform: handle.device.platform, version: handle.device.version, mode: handle.device.mode, ip: remoteAddress },
        scopedPairingId: principal.kind === "node" ? principal.pairingId : undefined
      })
      if (pairing === undefined) return yield* close(WsCloseCode.unauthorized, PAIRING_CLOSE_REASON.revoked)
    }
    yield* env.presence.upsert({ deviceId: handle.deviceId, role: handle.role, reason: "connect", connectedAt: handle.connectedAt })

    // --- Envelopes --------------------------------------------------------------------------------
    const inFlight = yield* FiberSet.make<void>()
    const runInFlight = yield* FiberSet.runtime(inFlight)<never>()
    const handleEnvelope = (text: string): void => {
      const message = parse(text)
      if (message === PARSE_FAILED || !isObject(message) || "event_id" in message) {
        received(UNKNOWN_TYPE)
        if (message === PARSE_FAILED) return errorEvent("invalid_json", "message is not valid JSON")
        if (!isObject(message)) return errorEvent("invalid_message", "message must be a JSON object")
        return errorEvent("unexpected_event", "clients may not send events")
      }
      if ("ok" in message) {
        received(env.labels.responseTypeLabel(message.type))
        const response = decodeResponse(message)
        if (Result.isFailure(response)) return errorEvent("invalid_message", response.failure)
        if (!env.backplane.reply(handle.connectionId, response.success)) {
          errorEvent("unknown_response", `no pending request ${response.success.request_id}`)
        }
        return
      }
      received(env.labels.requestTypeLabel(message.type))
      const request = decodeEnvelope(message)
      if (Result.isFailure(request)) return errorEvent("invalid_message", request.failure)
      const { request_id, type } = request.success
      if (type === "connect" || type === "connect.init" || type === "connect.proof") {
        respond(request_id, type, { ok: false, error: { code: "invalid_state", message: "the handshake is already complete" } })
        return
      }
      // A request whose outcome is already known (a handler that never suspends, a refusal) is answered
      // here, with no fiber. Every other request runs in its own fiber, owned by this connection. A defect
      // is answered internal_error, logged, and ends the connection (1011).
      const dispatched = env.dispatch(handle, request.success)
      if (Exit.isExit(dispatched) && Exit.isSuccess(dispatched)) {
        respond(request_id, type, (dispatched as Exit.Success<DispatchOutcome>).value)
        return
      }
      runInFlight(dispatched.pipe(
        Effect.map((outcome) => void respond(request_id, type, outcome)),
        Effect.catchCause((cause) => {
          if (Cause.hasInterruptsOnly(cause)) return Effect.void
          respond(request_id, type, { ok: false, error: toWsError(undefined) })
          return crash(cause, "request", { type })
        })
      ))
    }
    // Messages that arrived while the handshake finished, then every later one as it comes.
    for (const text of yield* Queue.clear(inbound)) handleEnvelope(text)
    onEnvelope = handleEnvelope
    // Lives until the socket closes (the inbound queue then ends).
    yield* Effect.forever(next)
  }).pipe(
    Effect.catchCause((cause) => {
      const failure = cause.reasons.find((r) => r._tag === "Fail")
      if (failure?._tag === "Fail") {
        const { code, reason } = failure.error
        return Effect.sync(() => {
          if (code !== 1000 && ws.readyState === ws.OPEN) closeSocket(code, reason)
        })
      }
      // An interrupt (shutdown) carries no failure: re-raise it so `onInterrupt` closes 1001.
      return Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause as Cause.Cause<never>) : crash(cause, "connection")
    }),
    Effect.ensuring(Effect.suspend(() => {
      if (registeredRole !== undefined) metrics.wsConnection(registeredRole, -1)
      if (registeredId === undefined) return Effect.void
      return env.backplane.unregister(registeredId)
    })),
    Effect.onInterrupt(() => Effect.sync(() => {
      if (ws.readyState === ws.OPEN) ws.close(WsCloseCode.goingAway, "gateway shutting down")
    }))
  ))
}
