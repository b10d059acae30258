/**
 * Response helpers and the ONE place where failures become HTTP responses
 * (design.md "Errors"): client errors are `{error, message}` (plus the error's
 * `details`, if it declares any) with the status
 * from `services/shared/errors.ts`; anything else is a logged
 * `500 {error:"internal_error", message, request_id}`, never a stack trace.
 * An aborted request (the client closed its connection) is logged at debug
 * level only: anyone can trigger it, and it is no server error.
 */
import { Cause, Effect, Option } from "effect"
import { HttpServerError, HttpServerResponse } from "effect/http"
import { errorDetails, errorInfo, TooManyRequests } from "../../services/shared/errors.ts"

const JSON_TYPE = "application/json"

/** A JSON response with `status` (default 200). The body is serialised once with `JSON.stringify`. */
export const json = (body: unknown, status = 200): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(JSON.stringify(body), { status, contentType: JSON_TYPE })

/** An error response `{error: code, message}` with `status`. */
const errorJson = (status: number, code: string, message: string): HttpServerResponse.HttpServerResponse =>
  json({ error: code, message }, status)

const routeNotFound = () => errorJson(404, "not_found", "route not found")

/** The answer to an aborted request (499, as nginx logs it); it is never delivered. */
const clientClosedRequest = HttpServerResponse.empty({ status: 499 })

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
    const e = error.value
    const info = errorInfo(e)
    if (info !== undefined) {
      const details = errorDetails(e)
      const message = (e as { message: string }).message
      const response = details === undefined
        ? errorJson(info.status, info.code, message)
        : json({ ...details, error: info.code, message }, info.status)
      return Effect.succeed(
        e instanceof TooManyRequests
          ? HttpServerResponse.setHeader(response, "retry-after", String(e.retryAfterSeconds))
          : response
      )
    }
    if (HttpServerError.isHttpServerError(e)) {
      const reason = e.reason
      if (reason._tag === "RouteNotFound") return Effect.succeed(routeNotFound())
      if (reason._tag === "RequestParseError" && reason.reason === "BodyTooLarge") {
        return Effect.succeed(errorJson(413, "payload_too_large", "request body is too large"))
      }
      if (reason._tag === "RequestParseError") {
        return Effect.succeed(errorJson(400, "invalid_request", "request body could not be read"))
      }
    }
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
