/**
 * Serving `GatewayApi` with Effect's `HttpApiBuilder`, with the gateway's
 * request rules where they differ from the builder's defaults:
 *
 * - {@link group} is `HttpApiBuilder.group` whose handlers' successes drop
 *   `undefined` fields before the schema encodes them (as `JSON.stringify`
 *   did), and whose handlers read a JSON body
 *   the gateway's way (src/http/api/): whatever the `content-type`, an empty
 *   body is 400 "request body is empty", malformed JSON 400 "malformed JSON:
 *   <reason>" (never quoting the body), a schema failure 400 naming the field
 *   (services/shared/decode.ts), and an endpoint marked `OptionalBody` takes
 *   an empty body as `{}`. Path, query and success are the builder's.
 * - {@link RequestErrorsLive} (`HttpApiMiddleware.layerSchemaErrorTransform`)
 *   answers a path or query that fails its schema with the same 400
 *   `invalid_request` naming the field (`path`, `query` at the root); a success
 *   the handler produced that fails its own schema is a defect (500).
 *
 * - {@link WildcardBasesRouter}: `GET /ui` and `GET /ui/*` are both declared,
 *   but `HttpRouter` serves a `X/*` route at `X` too, so they are registered
 *   as one route.
 *
 * Everything here answers in the gateway's error format (src/http/respond.ts).
 */
import { Effect, Layer, Result, type Schema } from "effect"
import { HttpRouter, type HttpServerError } from "effect/http"
import { HttpApi, HttpApiBuilder, type HttpApiEndpoint, type HttpApiGroup, HttpApiMiddleware } from "effect/http-api"
import { formatIssue, makeDecoder, parseJsonBody } from "../../services/shared/decode.ts"
import { OptionalBody } from "./api/access.ts"
import { RequestErrors } from "./api/security.ts"
import { CurrentRequestId, failureResponse, invalidRequest } from "./respond.ts"

/**
 * Reads a request body inside a handler (`request.text`, `request.arrayBuffer`):
 * a body over the limit or unreadable is a defect that src/http/respond.ts
 * answers 413 / 400, as the builder does for the bodies it reads.
 */
export const readBody = <A>(read: Effect.Effect<A, HttpServerError.HttpServerError>): Effect.Effect<A> => Effect.orDie(read)

const LABELS: Record<string, string> = { Params: "path", Query: "query", Payload: "body", Headers: "headers" }

/** {@link RequestErrors}: request schema failures as 400 `invalid_request`; response encoding failures as defects. */
export const RequestErrorsLive: Layer.Layer<RequestErrors> = HttpApiMiddleware.layerSchemaErrorTransform(
  RequestErrors,
  (error) => {
    const label = LABELS[error.kind]
    return label === undefined ? Effect.die(error) : Effect.succeed(invalidRequest(formatIssue(error.cause.issue, label)))
  }
)

/** The JSON payload schema of an endpoint with a body (not GET/HEAD), if it declares one. */
const jsonPayloadSchema = (endpoint: HttpApiEndpoint.Top): Schema.Top | undefined => {
  if (endpoint.method === "GET" || endpoint.method === "HEAD") return undefined
  for (const [contentType, entry] of endpoint.payload) {
    if (contentType === "application/json") return entry.schemas[0]
  }
  return undefined
}

type AnyHandler = (request: any) => Effect.Effect<any, any, any>

const isPlainObject = (u: unknown): u is Record<string, unknown> => {
  if (typeof u !== "object" || u === null) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/**
 * `value` without its `undefined` fields, at any depth (plain objects and
 * arrays only), as `JSON.stringify` would write it: a field typed
 * `optionalKey` may hold `undefined` in a handler's answer, which the
 * success schema refuses. The value itself when it has none (no copy).
 */
export const dropUndefined = <A>(value: A): A => {
  if (Array.isArray(value)) {
    let out: Array<unknown> | undefined
    for (let i = 0; i < value.length; i++) {
      const item = dropUndefined(value[i])
      if (item !== value[i]) (out ??= value.slice())[i] = item
    }
    return (out ?? value) as A
  }
  if (!isPlainObject(value)) return value
  let out: Record<string, unknown> | undefined
  for (const key in value) {
    const field = value[key]
    if (field === undefined) {
      out ??= { ...value }
      delete out[key]
      continue
    }
    const cleaned = dropUndefined(field)
    if (cleaned !== field) (out ??= { ...value })[key] = cleaned
  }
  return (out ?? value) as A
}

/** `handler` whose success has no `undefined` fields ({@link dropUndefined}). */
const withoutUndefined = (handler: AnyHandler): AnyHandler => (request) => Effect.map(handler(request), dropUndefined)

/** Wraps `handler` so that it receives `payload` decoded from the raw body, or answers the body's 400. */
const withJsonBody = (endpoint: HttpApiEndpoint.Top, group: HttpApiGroup.Top, handler: AnyHandler): AnyHandler | undefined => {
  const schema = jsonPayloadSchema(endpoint)
  if (schema === undefined) return undefined
  const decode = makeDecoder(schema as unknown as Schema.ConstraintDecoder<unknown>, { label: "body" })
  const optional = (endpoint.annotations.mapUnsafe.get(OptionalBody.key) ?? group.annotations.mapUnsafe.get(OptionalBody.key)) === true
  return (request: { readonly request: { readonly text: Effect.Effect<string, unknown> } }) =>
    Effect.matchCauseEffect(request.request.text, {
      onFailure: (cause) => Effect.flatMap(CurrentRequestId, (id) => failureResponse(cause, id)),
      onSuccess: (text): Effect.Effect<unknown, unknown, unknown> => {
        const parsed = optional && text.trim() === "" ? Result.succeed({}) : parseJsonBody(text)
        if (Result.isFailure(parsed)) return Effect.succeed(invalidRequest(parsed.failure))
        const payload = decode(parsed.success)
        if (Result.isFailure(payload)) return Effect.succeed(invalidRequest(payload.failure))
        return handler({ ...request, payload: payload.success })
      }
    })
}

interface RegisteringHandlers {
  handle(name: string, handler: AnyHandler, options?: unknown): unknown
  handleRaw(name: string, handler: AnyHandler, options?: unknown): unknown
}

/** `handlers` whose `handle`/`handleAll` register JSON-body endpoints as raw handlers reading the body the gateway's way. */
const withJsonBodies = <H>(group: HttpApiGroup.Top, handlers: H): H => {
  const target = handlers as unknown as RegisteringHandlers
  const self: RegisteringHandlers & { handleAll(impls: Record<string, AnyHandler>): unknown } = Object.create(handlers as object)
  self.handle = (name, impl, options) => {
    const handler = withoutUndefined(impl)
    const endpoint = group.endpoints[name] as HttpApiEndpoint.Top | undefined
    const raw = endpoint === undefined ? undefined : withJsonBody(endpoint, group, handler)
    if (raw === undefined) target.handle(name, handler, options)
    else target.handleRaw(name, raw, options)
    return self
  }
  self.handleAll = (impls) => {
    for (const [name, handler] of Object.entries(impls)) self.handle(name, handler)
    return self
  }
  return self as unknown as H
}

/**
 * `HttpApiBuilder.group(api, name, build)` with the gateway's JSON bodies
 * (see the module doc). Handlers are typed by the declaration: a handler
 * must answer its endpoint's success (or an `HttpServerResponse`) and may
 * fail only with the errors its endpoint declares.
 */
export const group: typeof HttpApiBuilder.group = (api, name, build) =>
  HttpApiBuilder.group(api, name, (handlers) =>
    build(withJsonBodies((api.groups as unknown as Record<string, HttpApiGroup.Top>)[name], handlers)))

/**
 * Merges each pair of routes `X` and `X/*` (same method) into one `X/*`
 * route that answers with `X`'s handler when the path has no tail, else with
 * `X/*`'s (`HttpRouter` refuses the pair: it serves `X/*` at `X` already).
 */
const mergeWildcardBases = (routes: ReadonlyArray<HttpRouter.Route<any, any>>): Array<HttpRouter.Route<any, any>> => {
  const byKey = new Map(routes.map((route) => [`${route.method} ${route.path}`, route]))
  const out: Array<HttpRouter.Route<any, any>> = []
  for (const route of routes) {
    if (byKey.has(`${route.method} ${route.path}/*`)) continue
    const base = route.path.endsWith("/*") ? byKey.get(`${route.method} ${route.path.slice(0, -2)}`) : undefined
    out.push(
      base === undefined ? route : HttpRouter.route(
        route.method,
        route.path,
        Effect.flatMap(HttpRouter.params, (params) => (params["*"] ?? "") === "" ? base.handler : route.handler),
        { uninterruptible: route.uninterruptible }
      )
    )
  }
  return out
}

/** The `HttpRouter` for `HttpApiBuilder.layer`, registering `X` and `X/*` as one route (see {@link mergeWildcardBases}). */
export const WildcardBasesRouter: Layer.Layer<HttpRouter.HttpRouter, never, HttpRouter.HttpRouter> = Layer.effect(
  HttpRouter.HttpRouter,
  Effect.map(HttpRouter.HttpRouter, (router): HttpRouter.HttpRouter => ({
    ...router,
    addAll: (routes) => router.addAll(mergeWildcardBases(routes)) as any
  }))
)

/** The id of the gateway's `HttpApi` ({@link apiOf}): every group's handlers are registered under it. */
export const GATEWAY_API_ID = "svc-gateway"

/**
 * A one-group `HttpApi` under {@link GATEWAY_API_ID}, for building that
 * group's handlers (`group(apiOf(ApprovalsApi), "approvals", …)`) without
 * the whole `GatewayApi`: a group's handler layer is keyed by the group's
 * name only, so `HttpApiBuilder.layer(GatewayApi)` (src/app/) serves it.
 */
export const apiOf = <const G extends HttpApiGroup.Constraint>(declaration: G) => HttpApi.make(GATEWAY_API_ID).add(declaration)
