/**
 * The wire form of client-visible errors for HTTP declarations: an error
 * class (services/<subsystem>/errors.ts, with `httpApiStatus` and
 * `errorCode`) becomes the schema of the body it is answered with,
 * `{error: <code>, message}` at its status. Endpoints list their errors with
 * {@link wire}; the OpenAPI document and the typed client read them from there.
 */
import { Schema } from "effect"
import {
  Forbidden,
  InvalidRequest,
  PayloadTooLarge,
  TooManyRequests,
  Unauthorized
} from "../../../services/shared/errors.ts"

/** A `Schema.TaggedError` class of a client-visible error. */
export type ErrorClass = Schema.Top & { readonly identifier: string }

const cache = new WeakMap<object, Schema.Top>()

/** The fields of a class's `details` struct, when it declares one: they are extra fields of its HTTP body. */
const detailFields = (errorClass: ErrorClass): Schema.Struct.Fields => {
  const details = (errorClass as { readonly fields?: Schema.Struct.Fields }).fields?.details
  const fields = (details as { readonly fields?: Schema.Struct.Fields } | undefined)?.fields
  return fields ?? {}
}

/**
 * `{error: <code>, message}` (plus the fields of the class's `details`, if it
 * declares any) with the class's status, for `HttpApiEndpoint` `error` lists.
 * Throws at declaration time if the class declares no
 * `httpApiStatus`/`errorCode` (a programming error).
 */
export const wire = (errorClass: ErrorClass): Schema.Top => {
  const cached = cache.get(errorClass)
  if (cached !== undefined) return cached
  const annotations = Schema.resolveAnnotations(errorClass)
  const status = annotations?.httpApiStatus
  const code = annotations?.errorCode
  if (typeof status !== "number" || typeof code !== "string") {
    throw new Error(`${errorClass.identifier} declares no httpApiStatus/errorCode`)
  }
  const schema = Schema.Struct({
    ...detailFields(errorClass),
    error: Schema.Literal(code).annotate({ description: "Stable error code." }),
    message: Schema.String.annotate({ description: "Human-readable explanation." })
  }).annotate({
    httpApiStatus: status,
    identifier: `${errorClass.identifier}Error`,
    description: annotations?.description ?? code
  })
  cache.set(errorClass, schema)
  return schema
}

/** Errors every authenticated route can answer: 401, 403, 413, 429. */
export const AUTH_ERRORS: ReadonlyArray<Schema.Top> = [wire(Unauthorized), wire(Forbidden), wire(PayloadTooLarge), wire(TooManyRequests)]

/** {@link AUTH_ERRORS} plus 400 `invalid_request`, for routes that decode a body, path or query. */
export const REQUEST_ERRORS: ReadonlyArray<Schema.Top> = [wire(InvalidRequest), ...AUTH_ERRORS]
