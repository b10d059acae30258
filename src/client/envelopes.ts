/**
 * Envelope handling of the client core (gateway-api.md "WebSocket API"): decoding of incoming messages with
 * the contract's schemas, error shapes of handler replies and handshake refusals, close descriptions and
 * event filters. No Node built-ins.
 */
import { Schema } from "effect"
import {
  WsConnectInitResult,
  WsConnectProofResult,
  type WsError,
  WsEventEnvelope,
  WsRequestEnvelope,
  WsResponseEnvelope
} from "../../services/ws-sessions/schema.ts"
import { GatewayClientError, GatewayRequestError, SCOPED_TOKEN_REFUSED_CLOSE_CODES } from "./errors.ts"
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
