/**
 * Request-body decoding for JSON routes: read (bounded by the middleware's
 * body limit), parse, decode with a precompiled decoder. Every structural
 * failure — empty body, malformed JSON, non-object, wrong field — is a 400
 * `invalid_request` whose message names the field.
 */
import { Effect, Result } from "effect"
import { HttpServerRequest } from "effect/http"
import type { Decoder } from "../contracts/decode.ts"
import { parseJsonBody } from "../contracts/decode.ts"
import { InvalidRequest } from "../../services/shared/errors.ts"

/**
 * Decodes the current request's JSON body with `decode` (build it once with
 * `makeDecoder`). Fails with `InvalidRequest` (400); read errors (413 and
 * aborted bodies) pass through to the error mapping.
 */
export const decodeJsonBody = <A>(decode: Decoder<A>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.flatMap(request.text, (text) => {
      const parsed = parseJsonBody(text)
      if (Result.isFailure(parsed)) return Effect.fail(new InvalidRequest({ message: parsed.failure }))
      const decoded = decode(parsed.success)
      return Result.isSuccess(decoded)
        ? Effect.succeed(decoded.success)
        : Effect.fail(new InvalidRequest({ message: decoded.failure }))
    }))
