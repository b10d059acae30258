/**
 * Envelope handling of the client core (gateway-api.md "WebSocket API"): decoding of incoming messages with
 * the contract's schemas, error shapes of handler replies, handshake refusals and closed sockets, event
 * filters and event streams. No Node built-ins.
 */
import { Schema } from "effect"
import {
  WS_SUBPROTOCOL,
  WsConnectInitResult,
  WsConnectProofResult,
  type WsError,
  WsEventEnvelope,
  WsRequestEnvelope,
  WsResponseEnvelope
} from "../../services/ws-sessions/schema.ts"
import { FATAL_CLOSE_CODES, GatewayClientError, GatewayRequestError, SCOPED_TOKEN_REFUSED_CLOSE_CODES } from "./errors.ts"
import type { SocketCloseInfo } from "./socket.ts"
import type { EventFilter, UnpairedInfo } from "./types.ts"

/** A plain object (not null, not an array). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Decoders of incoming messages, with the contract's own schemas (compiled once). */
export const decodeEvent = Schema.decodeUnknownResult(WsEventEnvelope)
export const decodeResponse = Schema.decodeUnknownResult(WsResponseEnvelope)
export const decodeRequest = Schema.decodeUnknownResult(WsRequestEnvelope)
export const decodeInitResult = Schema.decodeUnknownResult(WsConnectInitResult)
export const decodeProofResult = Schema.decodeUnknownResult(WsConnectProofResult)

/** `code <n>` or `code <n> <reason>`. */
export const describeClose = (code: number, reason: string): string => (reason === "" ? `code ${code}` : `code ${code} ${reason}`)

/** The message of an error, or the value as a string. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** How the gateway refused a scoped token (upgrade 401, close 4001/4008), or `undefined` for any other failure. */
export const scopedTokenRefusal = (error: unknown): Omit<UnpairedInfo, "fallback"> | undefined => {
  if (!(error instanceof GatewayClientError)) return undefined
  if (error.code === "upgrade_rejected" && error.httpStatus === 401) {
    return { closeCode: undefined, closeReason: undefined, httpStatus: 401 }
  }
  if (error.code === "connection_closed" && error.closeCode !== undefined && SCOPED_TOKEN_REFUSED_CLOSE_CODES.has(error.closeCode)) {
    return { closeCode: error.closeCode, closeReason: error.closeReason, httpStatus: undefined }
  }
  return undefined
}

/** `ok:false` error of a handler that threw: its string `code` (else `handler_error`), message and `details`. */
export const handlerError = (error: unknown): WsError => {
  const record = isRecord(error) ? error : {}
  const code = typeof record["code"] === "string" && record["code"] !== "" ? record["code"] : "handler_error"
  const message =
    error instanceof Error ? error.message : typeof record["message"] === "string" ? record["message"] : String(error)
  return "details" in record && record["details"] !== undefined
    ? { code, message, details: record["details"] }
    : { code, message }
}

/** A handshake step answered `ok:false` is a deliberate refusal: fatal, with the gateway's error as `cause`. */
export const refused = (error: unknown): never => {
  if (error instanceof GatewayRequestError) {
    throw new GatewayClientError(
      "handshake_refused",
      `gateway refused ${error.requestType}: ${error.code}: ${error.message}`,
      { fatal: true, cause: error }
    )
  }
  throw error
}

/** The predicate of an {@link EventFilter}: a type, a `prefix.*` pattern, `*`, a list of those, or a predicate. */
export const matcher = (filter: EventFilter | undefined): ((event: WsEventEnvelope) => boolean) => {
  if (filter === undefined) return () => true
  if (typeof filter === "function") return filter
  const patterns = typeof filter === "string" ? [filter] : filter
  const matchOne = (pattern: string) =>
    pattern === "*"
      ? () => true
      : pattern.endsWith(".*")
        ? (type: string) => type.startsWith(pattern.slice(0, -1))
        : (type: string) => type === pattern
  const tests = patterns.map(matchOne)
  return (event) => tests.some((test) => test(event.type))
}

/**
 * The error of a socket that closed: `connection_closed` "client closed" when the client closed it;
 * `upgrade_rejected` (fatal on 401/403) for an HTTP answer to the upgrade; `protocol_error` (fatal) when the
 * gateway did not negotiate `svc-v1`; else `connection_closed` with the close code (fatal for
 * {@link FATAL_CLOSE_CODES}) and, for 1006, the transport's last error.
 */
export const closeErrorOf = (info: SocketCloseInfo, clientClosed: boolean): GatewayClientError => {
  const { code, reason, httpStatus, error: lastError } = info
  if (clientClosed) {
    return new GatewayClientError("connection_closed", "connection closed: client closed", { closeCode: code, closeReason: reason })
  }
  if (httpStatus !== undefined) {
    return new GatewayClientError("upgrade_rejected", `gateway rejected the WebSocket upgrade with HTTP ${httpStatus}`, {
      httpStatus,
      fatal: httpStatus === 401 || httpStatus === 403
    })
  }
  if (lastError !== undefined && /^Server sent (no|an invalid) subprotocol/.test(lastError.message)) {
    return new GatewayClientError("protocol_error", `gateway did not negotiate ${WS_SUBPROTOCOL}: ${lastError.message}`, {
      fatal: true,
      cause: lastError
    })
  }
  return new GatewayClientError(
    "connection_closed",
    `connection closed (${describeClose(code, reason)})${code === 1006 && lastError !== undefined ? `: ${lastError.message}` : ""}`,
    { closeCode: code, closeReason: reason, fatal: FATAL_CLOSE_CODES.has(code), cause: lastError }
  )
}

/**
 * An async iterator over the events `accept` lets through, from `subscribe` (unbounded buffer until read). It
 * registers itself in `streams` (the client ends them all on close) and ends on `return()` or `end()`;
 * `ended: true` makes it end at once (a closed client).
 */
export const eventStream = (options: {
  readonly accept: (event: WsEventEnvelope) => boolean
  readonly ended: boolean
  readonly subscribe: (listener: (event: WsEventEnvelope) => void) => () => void
  readonly streams: Set<{ readonly end: () => void }>
}): AsyncIterableIterator<WsEventEnvelope> => {
  const queue: Array<WsEventEnvelope> = []
  const waiters: Array<(result: IteratorResult<WsEventEnvelope>) => void> = []
  let done = options.ended
  const finish = () => {
    if (done) return
    done = true
    unsubscribe()
    options.streams.delete(stream)
    queue.length = 0
    for (const waiter of waiters.splice(0)) waiter({ done: true, value: undefined })
  }
  const stream = { end: finish }
  const unsubscribe = options.subscribe((event) => {
    if (!options.accept(event)) return
    const waiter = waiters.shift()
    if (waiter !== undefined) waiter({ done: false, value: event })
    else queue.push(event)
  })
  if (done) unsubscribe()
  else options.streams.add(stream)
  const iterator: AsyncIterableIterator<WsEventEnvelope> = {
    next: () => {
      const value = queue.shift()
      if (value !== undefined) return Promise.resolve({ done: false, value })
      if (done) return Promise.resolve({ done: true, value: undefined })
      return new Promise((resolve) => waiters.push(resolve))
    },
    return: () => {
      finish()
      return Promise.resolve({ done: true, value: undefined })
    },
    [Symbol.asyncIterator]: () => iterator
  }
  return iterator
}
