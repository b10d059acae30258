/**
 * One declaration per WebSocket request type (gateway-api.md "WebSocket API"
 * message table): its type, the scope a device token needs (`null`: none),
 * the roles that may send it, and its payload and result schemas. Dispatch,
 * authorization and the client SDK's typed request map are derived from the
 * declarations; handlers are bound to them in src/ws/<subsystem>.ts.
 */
import { Schema } from "effect"
import type { WsPeerRole } from "../../../services/ws-sessions/schema.ts"

/** A client-to-gateway request type. */
export interface WsMessage<
  Type extends string = string,
  Payload extends Schema.Top = Schema.Top,
  Result extends Schema.Top = Schema.Top
> {
  readonly type: Type
  /** Scope a device token needs; `null` when none is required. */
  readonly scope: string | null
  /** Roles allowed to send it. */
  readonly roles: ReadonlyArray<WsPeerRole>
  /**
   * True when a node authenticated by its scoped node token may send it (docs/pairing.md); every other type is
   * `forbidden` to such a node. Default false.
   */
  readonly nodeToken: boolean
  /** Schema of `payload` (an absent payload is decoded as `{}`). */
  readonly payload: Payload
  /** Schema of `result`; `Schema.Void` when the response carries none (`{ok: true}`). */
  readonly result: Result
  /** What it does (docs/api.md). */
  readonly description?: string | undefined
  /** One example (docs/api.md): a payload the type accepts and, when it has one, a result it answers. */
  readonly example?: WsExample | undefined
}

/** An example request of a type: `payload` decodes with its payload schema, `result` with its result schema. */
export interface WsExample {
  readonly payload: unknown
  readonly result?: unknown
}

/** Any declaration. */
export type AnyWsMessage = WsMessage<string, Schema.Top, Schema.Top>

/** Operator programs only (the spec's "client to gateway"). */
export const CLIENT: ReadonlyArray<WsPeerRole> = ["client"]
/** Nodes only. */
export const NODE: ReadonlyArray<WsPeerRole> = ["node"]
/** Any peer. */
export const ANY_ROLE: ReadonlyArray<WsPeerRole> = ["client", "node"]

/** Declares a request type. Payload defaults to any JSON, result to none. */
export const make = <
  const Type extends string,
  Payload extends Schema.Top = typeof Schema.Unknown,
  Result extends Schema.Top = typeof Schema.Void
>(
  type: Type,
  options: {
    readonly scope: string | null
    readonly roles: ReadonlyArray<WsPeerRole>
    /** A scoped node token may send it (default false). */
    readonly nodeToken?: boolean | undefined
    readonly payload?: Payload | undefined
    readonly result?: Result | undefined
    readonly description?: string | undefined
    readonly example?: WsExample | undefined
  }
): WsMessage<Type, Payload, Result> => ({
  type,
  scope: options.scope,
  roles: options.roles,
  nodeToken: options.nodeToken ?? false,
  payload: (options.payload ?? Schema.Unknown) as Payload,
  result: (options.result ?? Schema.Void) as Result,
  description: options.description,
  example: options.example
})

/**
 * The typed request map of a list of declarations: for each type, the
 * payload a client sends (encoded form) and the result it receives.
 */
export type RequestMap<Messages extends AnyWsMessage> = {
  readonly [M in Messages as M["type"]]: {
    readonly payload: M["payload"]["Encoded"]
    readonly result: M["result"]["Type"]
  }
}

/** A gateway-to-peer request type (`approval.request`, `task.execute`): the payload sent and the result expected. */
export interface WsInitiatedRequest<
  Type extends string = string,
  Payload extends Schema.Top = Schema.Top,
  Result extends Schema.Top = Schema.Top
> {
  readonly type: Type
  /** Roles it is sent to. */
  readonly roles: ReadonlyArray<WsPeerRole>
  readonly payload: Payload
  /** Schema a peer's `result` must satisfy; anything else fails the request. */
  readonly result: Result
}

/** Declares a gateway-initiated request type. */
export const initiated = <const Type extends string, Payload extends Schema.Top, Result extends Schema.Top>(
  type: Type,
  options: { readonly roles: ReadonlyArray<WsPeerRole>; readonly payload: Payload; readonly result: Result }
): WsInitiatedRequest<Type, Payload, Result> => ({ type, ...options })

/** The typed map of gateway-initiated requests: the payload a peer receives and the result its handler returns (encoded). */
export type InitiatedMap<Requests extends WsInitiatedRequest> = {
  readonly [R in Requests as R["type"]]: {
    readonly payload: R["payload"]["Type"]
    readonly result: R["result"]["Encoded"]
  }
}
