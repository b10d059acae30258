/**
 * The wire form of client-visible errors for HTTP declarations: an error
 * class (services/<subsystem>/errors.ts, with `httpApiStatus` and
 * `errorCode`) becomes the schema of the body it is answered with,
 * `{error: <code>, message}` (plus the fields of its `details`) at its
 * status. Endpoints list their errors with {@link wire}; the server encodes a
 * handler's failure with it, the compiler rejects a handler that fails with
 * an error its endpoint does not list, and the OpenAPI document and the typed
 * client read the same list.
 */
import { Schema, SchemaGetter } from "effect"
import {
  Forbidden,
  InvalidRequest,
  PayloadTooLarge,
  TooManyRequests,
  Unauthorized
} from "../../../services/shared/errors.ts"

/** A `Schema.TaggedError` class of a client-visible error. */
export type ErrorClass = Schema.Top & { readonly identifier: string } & (abstract new(...args: any) => any)

/**
 * The schema of a client-visible error on the wire: its type is the error
 * class's instance (what handlers fail with), its encoded form the body
 * `{...details, error: <code>, message}`.
 */
export interface Wire<C extends ErrorClass> extends Schema.Codec<InstanceType<C>, WireBody> {}

/** The encoded body of a client-visible error. */
export interface WireBody {
  readonly error: string
  readonly message: string
}

const cache = new WeakMap<object, Schema.Top>()

/** The fields of a class's `details` struct, when it declares one: they are extra fields of its HTTP body. */
const detailFields = (errorClass: ErrorClass): Schema.Struct.Fields | undefined => {
  const details = (errorClass as { readonly fields?: Schema.Struct.Fields }).fields?.details
  return (details as { readonly fields?: Schema.Struct.Fields } | undefined)?.fields
}

/**
 * `{error: <code>, message}` (plus the fields of the class's `details`, if it
 * declares any) with the class's status, for `HttpApiEndpoint` `error` lists.
 * Encoding writes the instance's `details` and `message` exactly as
 * `src/http/respond.ts` does; decoding (the typed client) gives back an
 * instance of the class that also carries the body's `error` code. Throws at
 * declaration time if the class declares no `httpApiStatus`/`errorCode` (a
 * programming error).
 */
export const wire = <C extends ErrorClass>(errorClass: C): Wire<C> => {
  const cached = cache.get(errorClass)
  if (cached !== undefined) return cached as unknown as Wire<C>
  const annotations = Schema.resolveAnnotations(errorClass)
  const status = annotations?.httpApiStatus
  const code = annotations?.errorCode
  if (typeof status !== "number" || typeof code !== "string") {
    throw new Error(`${errorClass.identifier} declares no httpApiStatus/errorCode`)
  }
  const details = detailFields(errorClass)
  const wireAnnotations = {
    httpApiStatus: status,
    identifier: `${errorClass.identifier}Error`,
    description: annotations?.description ?? code
  }
  const body = Schema.Struct({
    ...details,
    error: Schema.Literal(code).annotate({ description: "Stable error code." }),
    message: Schema.String.annotate({ description: "Human-readable explanation." })
  }).annotate(wireAnnotations)
  const Class = errorClass as unknown as new(fields: object, options?: { readonly disableChecks?: boolean }) => object
  const schema = body.pipe(Schema.decodeTo(Schema.instanceOf(Class), {
    decode: SchemaGetter.transform((input: Record<string, unknown>) => {
      const { error, message, ...rest } = input
      const fields = details === undefined ? { message } : { message, details: rest }
      return Object.assign(new Class(fields, { disableChecks: true }), { error })
    }),
    encode: SchemaGetter.transform((instance: object) => {
      const e = instance as { readonly message: string; readonly details?: unknown }
      const extra = details !== undefined && typeof e.details === "object" && e.details !== null ? e.details : undefined
      return { ...extra, error: code, message: e.message } as never
    })
  })).annotate({ httpApiStatus: status, description: wireAnnotations.description })
  cache.set(errorClass, schema)
  return schema as unknown as Wire<C>
}

/** Errors every authenticated route can answer: 401, 403, 413, 429. */
export const AUTH_ERRORS = [wire(Unauthorized), wire(Forbidden), wire(PayloadTooLarge), wire(TooManyRequests)] as const

/** {@link AUTH_ERRORS} plus 400 `invalid_request`, for routes that decode a body, path or query. */
export const REQUEST_ERRORS = [wire(InvalidRequest), ...AUTH_ERRORS] as const
