/**
 * Gateway-wide typed errors and the ONE table that maps them to wire codes and
 * HTTP statuses (gateway-api.md "Errors"). HTTP bodies are `{error, message}`;
 * WebSocket failures use the same `code` in `{ok:false, error:{code, message}}`.
 *
 * Services fail with these classes (or their own subsystem errors listed in
 * {@link errorTable}); transports never invent status codes themselves.
 */
import { Schema } from "effect"

/** 400 `invalid_request`: the request failed structural validation; `message` names the field. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest",
  { message: Schema.String },
  { httpApiStatus: 400 }
) {}

/** 401 `unauthorized`: credentials missing, malformed, unknown, revoked or expired. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: Schema.String },
  { httpApiStatus: 401 }
) {}

/** 403 `forbidden`: authenticated, but the token's scopes (or kind) do not allow the operation. */
export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  { message: Schema.String },
  { httpApiStatus: 403 }
) {}

/** 404 `not_found`: the route or the addressed resource does not exist. */
export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  { message: Schema.String },
  { httpApiStatus: 404 }
) {}

/** 413 `payload_too_large`: the request body exceeds the configured limit (bytes). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { message: Schema.String, limitBytes: Schema.Number },
  { httpApiStatus: 413 }
) {}

/** 429 `too_many_requests`: a rate limit was hit; `retryAfterSeconds` (>= 1) goes into `Retry-After`. */
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()(
  "TooManyRequests",
  { message: Schema.String, retryAfterSeconds: Schema.Number },
  { httpApiStatus: 429 }
) {}

/** 503 `service_unavailable`: a dependency the operation needs is not configured or not reachable. */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  { message: Schema.String },
  { httpApiStatus: 503 }
) {}

/** Every error a client can be shown. Anything else is an internal error (500, logged, never detailed). */
export type GatewayError =
  | InvalidRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | PayloadTooLarge
  | TooManyRequests
  | ServiceUnavailable

/** `_tag` → `[httpStatus, code]`: the single mapping used by HTTP and WebSocket transports. */
export const errorTable: Readonly<Record<GatewayError["_tag"], readonly [status: number, code: string]>> = {
  InvalidRequest: [400, "invalid_request"],
  Unauthorized: [401, "unauthorized"],
  Forbidden: [403, "forbidden"],
  NotFound: [404, "not_found"],
  PayloadTooLarge: [413, "payload_too_large"],
  TooManyRequests: [429, "too_many_requests"],
  ServiceUnavailable: [503, "service_unavailable"]
}

/** True when `u` is one of the client-visible {@link GatewayError}s. */
export const isGatewayError = (u: unknown): u is GatewayError =>
  typeof u === "object" && u !== null && "_tag" in u &&
  Object.prototype.hasOwnProperty.call(errorTable, (u as { _tag: string })._tag)
