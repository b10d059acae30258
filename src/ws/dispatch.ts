/**
 * Post-handshake request dispatch: ONE table, message type → authorization
 * (services/auth/wsMessageTable.ts: scope and roles), payload decoder,
 * handler. Transports stay thin: decode, call one service method, encode.
 * Failures use the same error table as HTTP (services/shared/errors.ts), so a
 * typed service error has one code on both transports.
 */
import { Effect, Result, Schema } from "effect"
import { hasScope } from "../../services/auth/principal.ts"
import { wsMessageTable } from "../../services/auth/wsMessageTable.ts"
import { errorTable, isGatewayError } from "../../services/shared/errors.ts"
import type { ConnectionHandle } from "../../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../../services/ws-sessions/EventBus.ts"
import { Presence } from "../../services/ws-sessions/Presence.ts"
import { type Decoder, makeDecoder } from "../contracts/decode.ts"
import { WsCapabilityReadyRequest, type WsError, WsPresenceBeaconRequest, type WsRequestEnvelope } from "../contracts/ws.ts"

/** A handled request type: its payload decoder and handler. */
interface WsHandler<P> {
  readonly decode: Decoder<P>
  readonly handle: (payload: P, connection: ConnectionHandle) => Effect.Effect<unknown, unknown>
}

const handler = <P>(decode: Decoder<P>, handle: WsHandler<P>["handle"]): WsHandler<unknown> =>
  ({ decode, handle }) as WsHandler<unknown>

/** `{ok:false}` error of a failure: gateway errors by the shared table, anything else `internal_error`. */
export const toWsError = (error: unknown): WsError => {
  if (isGatewayError(error)) return { code: errorTable[error._tag][1], message: error.message }
  return { code: "internal_error", message: "An unexpected error occurred" }
}

/** Outcome of one request: `result` for ok, `error` otherwise. */
export type DispatchOutcome =
  | { readonly ok: true; readonly result?: unknown }
  | { readonly ok: false; readonly error: WsError }

const failWith = (code: string, message: string, details?: unknown): DispatchOutcome => ({
  ok: false,
  error: details === undefined ? { code, message } : { code, message, details }
})

const optionalPayload = (payload: unknown): unknown => (payload === undefined ? {} : payload)

/**
 * Builds the dispatcher (once per gateway) from the services its handlers use.
 * `dispatch(connection, request)` never fails: every typed problem is an
 * outcome. A defect (a bug) propagates to the connection, which answers
 * `internal_error`, logs it and closes 1011.
 */
export const makeDispatcher = Effect.gen(function*() {
  const presence = yield* Presence
  const events = yield* EventBus

  const handlers = new Map<string, WsHandler<unknown>>([
    ["ping", handler(makeDecoder(Schema.Unknown), () => Effect.void)],
    [
      "presence.beacon",
      handler(makeDecoder(WsPresenceBeaconRequest, { label: "payload" }), (beacon, connection) =>
        Effect.map(
          presence.upsert({ deviceId: connection.deviceId, role: connection.role, reason: "periodic", beacon }),
          (entry) => ({ entry })
        ))
    ],
    [
      "capability.ready",
      handler(makeDecoder(WsCapabilityReadyRequest, { label: "payload" }), (request, connection) => {
        const advertised = new Set(connection.capabilities.map((c) => c.id))
        connection.readyCapabilities.clear()
        for (const c of request.capabilities) if (advertised.has(c.id)) connection.readyCapabilities.add(c.id)
        const ready = connection.capabilities.filter((c) => connection.readyCapabilities.has(c.id))
        return events.publish({
          type: "capability.ready",
          payload: { node_id: connection.deviceId, connection_id: connection.connectionId, capabilities: ready },
          scope: { kind: "node", node_id: connection.deviceId },
          audience: { roles: ["client"], requiredScopes: ["operator.read"] }
        }).pipe(Effect.asVoid)
      })
    ]
  ])

  const dispatch = (connection: ConnectionHandle, request: WsRequestEnvelope): Effect.Effect<DispatchOutcome> => {
    const rule = wsMessageTable.get(request.type)
    const principal = connection.principal
    if (principal.kind === "device") {
      if (rule === undefined) {
        return Effect.succeed(failWith("forbidden", "request is not scope-authorized for scoped tokens"))
      }
      if (rule.scope !== null && !hasScope(principal, rule.scope)) {
        return Effect.succeed(failWith("forbidden", `insufficient scope: ${request.type} requires ${rule.scope}`))
      }
    }
    if (rule !== undefined && !rule.roles.includes(connection.role)) {
      return Effect.succeed(failWith("unauthorized", `only ${rule.roles.join(" or ")} peers may send ${request.type}`))
    }
    const h = handlers.get(request.type)
    if (h === undefined) {
      return Effect.succeed(failWith("unsupported_request", `request type ${request.type} is not supported`))
    }
    const decoded = h.decode(optionalPayload(request.payload))
    if (Result.isFailure(decoded)) return Effect.succeed(failWith("invalid_request", decoded.failure))
    return h.handle(decoded.success, connection).pipe(
      Effect.map((result): DispatchOutcome => (result === undefined ? { ok: true } : { ok: true, result })),
      // Typed failures are answers; a non-gateway one (e.g. the database is down) is logged as internal_error.
      // Defects are not caught here: the connection logs them and closes 1011.
      Effect.catch((error) =>
        isGatewayError(error)
          ? Effect.succeed<DispatchOutcome>({ ok: false, error: toWsError(error) })
          : Effect.logError("ws request failed").pipe(
            Effect.annotateLogs({ type: request.type, connection_id: connection.connectionId, cause: String(error) }),
            Effect.as<DispatchOutcome>({ ok: false, error: toWsError(error) })
          )
      )
    )
  }

  return { dispatch, handledTypes: [...handlers.keys()] as ReadonlyArray<string> }
})
