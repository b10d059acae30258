/**
 * Post-handshake request dispatch, derived from the declarations in
 * src/ws/api/ (one per request type: scope, roles, payload and result
 * schemas) and the handler groups bound to them (src/ws/<subsystem>.ts).
 * Per request: authorization (device tokens need the declared scope; an
 * undeclared type is forbidden to them, rule 6 + deny by default; a scoped
 * node token may send only the types declared `nodeToken: true`), roles,
 * payload decoding (compiled once), the handler. Failures carry the codes of
 * the errors' own declarations (services/shared/errors.ts), as over HTTP.
 * With tracing on (docs/operations.md "Tracing") each handled request runs in
 * a `ws <type>` server span; with Effect's native tracer no span is made.
 */
import { Context, Effect, Exit, Layer, Result, type Schema, Tracer } from "effect"
import { DomainEvents } from "../../services/domain-events/DomainEvents.ts"
import { authzDenied } from "../../services/audit/authEvents.ts"
import { AuditChains, Decision } from "../../services/domain-events/decisions.ts"
import { hasScope, type Principal } from "../../services/auth/principal.ts"
import { type Decoder, makeDecoder } from "../../services/shared/decode.ts"
import { errorDetails, errorInfo, isClientError } from "../../services/shared/errors.ts"
import type { ConnectionHandle } from "../../services/backplane/schema.ts"
import type { WsError, WsRequestEnvelope } from "../../services/ws-sessions/schema.ts"
import { catchStorageDefect } from "../../layers/storage/repositoryEdge.ts"
import type { AnyWsMessage } from "./api/message.ts"

/** A handler of one request type: the decoded payload and the connection in, the result (plain JSON) out. */
export type WsHandler<M extends AnyWsMessage> = (
  payload: M["payload"]["Type"],
  connection: ConnectionHandle
) => Effect.Effect<M["result"]["Type"], unknown>

/** Handlers for every type of a list of declarations. */
export type WsHandlers<Messages extends AnyWsMessage> = {
  readonly [M in Messages as M["type"]]: WsHandler<M>
}

/** A subsystem's handlers, built from its services when the dispatcher is built. */
export interface WsHandlerGroup<R> {
  readonly messages: ReadonlyArray<AnyWsMessage>
  readonly build: Effect.Effect<Readonly<Record<string, WsHandler<AnyWsMessage>>>, never, R>
}

/**
 * Binds handlers to declarations. `build` runs once, with the services the
 * handlers need; the result must have a handler for every declared type.
 *
 * ```ts
 * export const SessionsWs = handlers([Ping, PresenceBeacon], Effect.gen(function*() {
 *   const presence = yield* Presence
 *   return { ping: () => Effect.void, "presence.beacon": (beacon, connection) => presence.upsert(...) }
 * }))
 * ```
 */
export const handlers = <const Messages extends ReadonlyArray<AnyWsMessage>, R>(
  messages: Messages,
  build: Effect.Effect<WsHandlers<Messages[number]>, never, R>
): WsHandlerGroup<R> => ({
  messages,
  build: build as unknown as Effect.Effect<Readonly<Record<string, WsHandler<AnyWsMessage>>>, never, R>
})

/** `{ok:false}` error of a failure: a client-visible error by its declared code (and `details`, if it has any), anything else `internal_error`. */
export const toWsError = (error: unknown): WsError => {
  const info = errorInfo(error)
  if (info === undefined) return { code: "internal_error", message: "An unexpected error occurred" }
  const details = errorDetails(error)
  const message = (error as { message: string }).message
  return details === undefined ? { code: info.code, message } : { code: info.code, message, details }
}

/** Outcome of one request: `result` for ok, `error` otherwise. */
export type DispatchOutcome =
  | { readonly ok: true; readonly result?: unknown }
  | { readonly ok: false; readonly error: WsError }

const OK: DispatchOutcome = { ok: true }

/** A handler's success as the answer's outcome (no `result` when the handler returned nothing). */
const succeeded = (result: unknown): DispatchOutcome => (result === undefined ? OK : { ok: true, result })

const failWith = (code: string, message: string): DispatchOutcome => ({ ok: false, error: { code, message } })

// Payload schemas decode from JSON and need no services.
const payloadDecoder = (message: AnyWsMessage): Decoder<unknown> =>
  makeDecoder(message.payload as unknown as Schema.ConstraintDecoder<unknown>, { label: "payload" })

interface Entry {
  readonly message: AnyWsMessage
  readonly decode: Decoder<unknown>
  readonly handler: WsHandler<AnyWsMessage> | undefined
}

/** The dispatcher of this gateway. */
export class WsDispatch extends Context.Service<WsDispatch, {
  /**
   * Runs one request of `connection`. Never fails: every typed problem is an
   * outcome. A defect (a bug) propagates to the connection, which answers
   * `internal_error`, logs it and closes 1011.
   */
  readonly dispatch: (connection: ConnectionHandle, request: WsRequestEnvelope) => Effect.Effect<DispatchOutcome>
  /** The request types that have a handler. */
  readonly handled: ReadonlyArray<string>
  /** Every declared request type, handled or planned (the metric labels of src/ws/messageTypes.ts). */
  readonly declared: ReadonlyArray<string>
}>()("svc-gateway/ws/WsDispatch") {}

type GroupServices<Groups extends ReadonlyArray<WsHandlerGroup<any>>> = Groups[number] extends WsHandlerGroup<infer R> ? R
  : never

/**
 * Builds {@link WsDispatch} from the declared types (`handled` must all get a
 * handler from `groups`; `planned` are authorized but answer
 * `unsupported_request`). A mismatch is a start-up defect naming the type.
 */
export const layer = <const Groups extends ReadonlyArray<WsHandlerGroup<any>>>(
  declared: { readonly handled: ReadonlyArray<AnyWsMessage>; readonly planned: ReadonlyArray<AnyWsMessage> },
  groups: Groups
): Layer.Layer<WsDispatch, never, GroupServices<Groups>> =>
  Layer.effect(
    WsDispatch,
    Effect.gen(function*() {
      const bound = new Map<string, WsHandler<AnyWsMessage>>()
      for (const group of groups) {
        const built = yield* group.build
        for (const message of group.messages) {
          const handler = built[message.type]
          if (handler === undefined) return yield* Effect.die(new Error(`no handler for WS request type ${message.type}`))
          bound.set(message.type, handler)
        }
      }
      const table = new Map<string, Entry>()
      for (const message of declared.handled) {
        const handler = bound.get(message.type)
        if (handler === undefined) return yield* Effect.die(new Error(`declared WS request type ${message.type} has no handler`))
        table.set(message.type, { message, decode: payloadDecoder(message), handler })
      }
      for (const message of declared.planned) {
        table.set(message.type, { message, decode: payloadDecoder(message), handler: undefined })
      }
      for (const type of bound.keys()) {
        if (!table.has(type)) return yield* Effect.die(new Error(`WS handler for undeclared request type ${type}`))
      }
      const traced = (yield* Tracer.Tracer) !== Tracer.nativeTracer
      const span = <A, E, R>(effect: Effect.Effect<A, E, R>, request: WsRequestEnvelope, connection: ConnectionHandle) =>
        traced
          ? Effect.withSpan(effect, `ws ${request.type}`, {
            kind: "server",
            attributes: { "ws.request.type": request.type, "ws.request_id": request.request_id, "ws.peer.role": connection.role }
          })
          : effect

      // A refusal is audited (`authz.denied` in `gateway.auth`, docs/audit.md), then answered `forbidden`.
      const domainEvents = yield* DomainEvents
      const denied = (principal: Principal, type: string, scope: string | null, message: string) =>
        Effect.as(
          domainEvents.publishOrLog(Decision, {
            chain: AuditChains.auth,
            action: authzDenied(principal, { transport: "ws", route: type, required_scope: scope, reason: message })
          }),
          failWith("forbidden", message)
        )

      // Hot path (every message): no span of its own (with tracing on, each request runs in its `ws <type>` span below).
      const dispatch = ((connection: ConnectionHandle, request: WsRequestEnvelope): Effect.Effect<DispatchOutcome> => {
        const entry = table.get(request.type)
        const principal = connection.principal
        if (principal.kind === "device") {
          if (entry === undefined) return denied(principal, request.type, null, "request is not scope-authorized for scoped tokens")
          const scope = entry.message.scope
          if (scope !== null && !hasScope(principal, scope)) {
            return denied(principal, request.type, scope, `insufficient scope: ${request.type} requires ${scope}`)
          }
        } else if (principal.kind === "node" && entry?.message.nodeToken !== true) {
          // A scoped node token may send only the types declared `nodeToken: true` (docs/pairing.md).
          return denied(principal, request.type, null, `${request.type} is not allowed with a scoped node token`)
        }
        if (entry !== undefined && !entry.message.roles.includes(connection.role)) {
          return Effect.succeed(failWith("unauthorized", `only ${entry.message.roles.join(" or ")} peers may send ${request.type}`))
        }
        if (entry?.handler === undefined) {
          return Effect.succeed(failWith("unsupported_request", `request type ${request.type} is not supported`))
        }
        const decoded = entry.decode(request.payload === undefined ? {} : request.payload)
        if (Result.isFailure(decoded)) return Effect.succeed(failWith("invalid_request", decoded.failure))
        const failed = (error: unknown) =>
          Effect.logError("ws request failed").pipe(
            Effect.annotateLogs({ type: request.type, connection_id: connection.connectionId, cause: String(error) }),
            Effect.as<DispatchOutcome>({ ok: false, error: toWsError(error) })
          )
        const handled = entry.handler(decoded.success, connection)
        // A handler that answered without suspending (`Effect.succeed`/`Effect.void` are already an Exit): its
        // outcome as an Exit too, so the connection answers at once without forking a fiber. Untraced only (with
        // tracing on, every request runs in its span).
        if (!traced && Exit.isExit(handled) && Exit.isSuccess(handled)) {
          return Exit.succeed(succeeded(handled.value))
        }
        return span(handled, request, connection).pipe(
          Effect.map(succeeded),
          // Typed failures are answers; a non-client one is logged as internal_error. The database failing (a
          // defect at a repository edge) is answered the same way and the connection stays open. Other defects are
          // not caught here: the connection logs them and closes 1011.
          Effect.catch((error) => isClientError(error) ? Effect.succeed<DispatchOutcome>({ ok: false, error: toWsError(error) }) : failed(error)),
          catchStorageDefect(failed)
        )
      })
      return WsDispatch.of({
        dispatch,
        handled: [...bound.keys()],
        declared: [...declared.handled, ...declared.planned].map((message) => message.type)
      })
    })
  )
