/**
 * Response helpers and the ONE place where failures become HTTP responses
 * (design.md "Errors"): client errors are `{error, message}` (plus the error's
 * `details`, if it declares any) with the status
 * from `services/shared/errors.ts`; anything else is a logged
 * `500 {error:"internal_error", message, request_id}`, never a stack trace.
 * An aborted request (the client closed its connection) is logged at debug
 * level only: anyone can trigger it, and it is no server error.
 */
import { Cause, Context, Effect, Option, Result } from "effect"
import { HttpServerError, HttpServerResponse } from "effect/http"
import { errorDetails, errorInfo, TooManyRequests } from "../../services/shared/errors.ts"

const JSON_TYPE = "application/json"

/** A JSON response with `status` (default 200). The body is serialised once with `JSON.stringify`. */
export const json = (body: unknown, status = 200): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(JSON.stringify(body), { status, contentType: JSON_TYPE })

/**
 * The request id of the request being answered (`x-request-id`), provided by
 * the global middleware (src/http/middleware.ts) to everything it runs, so a
 * 500 rendered deeper (an endpoint's middleware) names it too.
 */
export const CurrentRequestId = Context.Reference<string>("svc-gateway/http/CurrentRequestId", {
  defaultValue: () => "req-unknown"
})

/** An error response `{error: code, message}` with `status`. */
const errorJson = (status: number, code: string, message: string): HttpServerResponse.HttpServerResponse =>
  json({ error: code, message }, status)

/** 400 `{error: "invalid_request", message}`: a request that failed its declared schema or could not be parsed. */
export const invalidRequest = (message: string): HttpServerResponse.HttpServerResponse => errorJson(400, "invalid_request", message)

const routeNotFound = () => errorJson(404, "not_found", "route not found")

/** The answer to an aborted request (499, as nginx logs it); it is never delivered. */
const clientClosedRequest = HttpServerResponse.empty({ status: 499 })

/**
 * The response of a client-visible error (its class declares status and
 * code): `{...details, error, message}`, with `Retry-After` on a 429;
 * `undefined` for anything else.
 */
export const clientErrorResponse = (e: unknown): HttpServerResponse.HttpServerResponse | undefined => {
  const info = errorInfo(e)
  if (info === undefined) return undefined
  const details = errorDetails(e)
  const message = (e as { message: string }).message
  const response = details === undefined
    ? errorJson(info.status, info.code, message)
    : json({ ...details, error: info.code, message }, info.status)
  return e instanceof TooManyRequests
    ? HttpServerResponse.setHeader(response, "retry-after", String(e.retryAfterSeconds))
    : response
}

/** The answer to an unmatched route or a body that could not be read (413 over the limit, else 400). */
const bodyReadResponse = (e: unknown): HttpServerResponse.HttpServerResponse | undefined => {
  if (!HttpServerError.isHttpServerError(e)) return undefined
  const reason = e.reason
  if (reason._tag === "RouteNotFound") return routeNotFound()
  if (reason._tag === "RequestParseError" && reason.reason === "BodyTooLarge") {
    return errorJson(413, "payload_too_large", "request body is too large")
  }
  if (reason._tag === "RequestParseError") return errorJson(400, "invalid_request", "request body could not be read")
  return undefined
}

/**
 * Maps a failure to its response. `requestId` is echoed in 500 bodies so an
 * operator can find the logged cause.
 */
export const failureResponse = (
  cause: Cause.Cause<unknown>,
  requestId: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const error = Cause.findErrorOption(cause)
  if (Option.isSome(error)) {
    const response = clientErrorResponse(error.value) ?? bodyReadResponse(error.value)
    if (response !== undefined) return Effect.succeed(response)
  }
  // A body that could not be read inside a served endpoint (the builder and `readBody` make it a defect).
  const defect = Cause.findDefect(cause)
  if (Result.isSuccess(defect)) {
    const response = bodyReadResponse(defect.success)
    if (response !== undefined) return Effect.succeed(response)
  }
  if (Cause.hasInterruptsOnly(cause)) {
    // The client went away (or the server is stopping): nobody reads an answer, and it is not a server error.
    return Effect.logDebug("request aborted").pipe(
      Effect.annotateLogs({ request_id: requestId }),
      Effect.as(clientClosedRequest)
    )
  }
  return Effect.logError("request failed").pipe(
    Effect.annotateLogs({ request_id: requestId, cause: Cause.pretty(cause) }),
    Effect.as(json({ error: "internal_error", message: "An unexpected error occurred", request_id: requestId }, 500))
  )
}
