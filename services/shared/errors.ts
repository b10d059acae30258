/**
 * Gateway-wide typed errors (gateway-api.md "Errors"). Every client-visible
 * error is a `Schema.TaggedError` that declares, once, its HTTP status
 * (`httpApiStatus`) and its wire code (`errorCode`); the transports read both
 * from the class ({@link errorInfo}): HTTP answers `{error: code, message}`
 * with the status, WebSocket `{ok:false, error:{code, message, details?}}`.
 * A subsystem declares its own errors the same way in its `errors.ts`.
 *
 * Anything that is not such an error is an internal error (500, logged,
 * never detailed to the client).
 */
import { Schema } from "effect"

declare module "effect/Schema" {
  namespace Annotations {
    interface Annotations {
      /** Stable wire code of a client-visible error (`not_found`, `invalid_request`, …): `error` in HTTP bodies, `code` over WebSocket. */
      readonly errorCode?: string | undefined
    }
  }
}

/** 400 `invalid_request`: the request failed structural validation; `message` names the field. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest",
  { message: Schema.String },
  { httpApiStatus: 400, errorCode: "invalid_request" }
) {}

/** 401 `unauthorized`: credentials missing, malformed, unknown, revoked or expired. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: Schema.String },
  { httpApiStatus: 401, errorCode: "unauthorized" }
) {}

/** 403 `forbidden`: authenticated, but the token's scopes (or kind) do not allow the operation. */
export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  { message: Schema.String },
  { httpApiStatus: 403, errorCode: "forbidden" }
) {}

/** 404 `not_found`: the route or the addressed resource does not exist. */
export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  { message: Schema.String },
  { httpApiStatus: 404, errorCode: "not_found" }
) {}

/** 409 `invalid_state` (reference §5.3 error codes): the addressed resource is not in a state that allows the request. */
export class InvalidState extends Schema.TaggedError<InvalidState>()(
  "InvalidState",
  { message: Schema.String },
  { httpApiStatus: 409, errorCode: "invalid_state" }
) {}

/** 413 `payload_too_large`: the request body exceeds the configured limit (bytes). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { message: Schema.String },
  { httpApiStatus: 413, errorCode: "payload_too_large" }
) {}

/** 429 `too_many_requests`: a rate limit was hit; `retryAfterSeconds` (>= 1) goes into `Retry-After`. */
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()(
  "TooManyRequests",
  { message: Schema.String, retryAfterSeconds: Schema.Number },
  { httpApiStatus: 429, errorCode: "too_many_requests" }
) {}

/** 503 `service_unavailable`: a dependency the operation needs is not configured or not reachable. */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  { message: Schema.String },
  { httpApiStatus: 503, errorCode: "service_unavailable" }
) {}

/** Status and code of a client-visible error class. */
export interface ErrorInfo {
  readonly status: number
  readonly code: string
}

/** A client-visible error: any error whose class declares `httpApiStatus` and `errorCode`. */
export interface ClientError {
  readonly _tag: string
  readonly message: string
}

const infoByClass = new WeakMap<object, ErrorInfo | null>()

const readInfo = (constructor: object): ErrorInfo | null => {
  const annotations = Schema.isSchema(constructor) ? Schema.resolveAnnotations(constructor as Schema.Top) : undefined
  const status = annotations?.httpApiStatus
  const code = annotations?.errorCode
  return typeof status === "number" && typeof code === "string" ? { status, code } : null
}

/**
 * The status and code of a client-visible error (read from its class's
 * annotations, once per class), or `undefined` for anything else.
 */
export const errorInfo = (u: unknown): ErrorInfo | undefined => {
  if (typeof u !== "object" || u === null) return undefined
  const constructor = (u as { constructor?: unknown }).constructor
  if (typeof constructor !== "function") return undefined
  let info = infoByClass.get(constructor)
  if (info === undefined) {
    info = readInfo(constructor)
    infoByClass.set(constructor, info)
  }
  return info ?? undefined
}

/** True when `u` is a client-visible error (its class declares status and code). */
export const isClientError = (u: unknown): u is ClientError => errorInfo(u) !== undefined

/**
 * Structured details of a client-visible error: its `details` field when it
 * declares one holding a JSON object (e.g. `NodeTaskFailed`'s evidence).
 * They travel as `error.details` over WebSocket and as extra fields of the
 * HTTP body (`{...details, error, message}`; `error` and `message` win).
 */
export const errorDetails = (u: unknown): Readonly<Record<string, unknown>> | undefined => {
  if (!isClientError(u)) return undefined
  const details = (u as { readonly details?: unknown }).details
  return typeof details === "object" && details !== null && !Array.isArray(details)
    ? details as Readonly<Record<string, unknown>>
    : undefined
}
