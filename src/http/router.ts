/**
 * Serving the declared HTTP API (src/http/api/): handlers are bound to the
 * endpoints of `GatewayApi` by group ({@link handlers}), and {@link layer}
 * registers one `HttpRouter` route per endpoint with everything compiled once
 * from its declaration: path, query and JSON payload decoders (a failure is
 * 400 `invalid_request` naming the field), the success status, and the
 * handler. Authentication and authorization happen before, in the global
 * middleware (src/http/middleware.ts), from the same declarations
 * ({@link accessTable}).
 *
 * Handlers return their success value as typed by the endpoint's success
 * schema; it is plain JSON (the schema's type and encoded form agree) and is
 * written with `JSON.stringify`. A handler may also return an
 * `HttpServerResponse` (e.g. 204 with a cookie).
 */
import { Effect, Layer, Result, type Schema, type Types } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi, type HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import { type Decoder, makeDecoder, parseJsonBody } from "../../services/shared/decode.ts"
import { InvalidRequest } from "../../services/shared/errors.ts"
import { Access, OptionalBody, type RouteAccess } from "./api/access.ts"
import { json } from "./respond.ts"

/** What a handler receives: the decoded path params, query and payload its endpoint declares, and the request. */
export type HandlerRequest<E extends HttpApiEndpoint.ConstraintRequest> = Types.Simplify<
  & ([E["~Params"]["Type"]] extends [never] ? {} : { readonly params: E["~Params"]["Type"] })
  & ([E["~Query"]["Type"]] extends [never] ? {} : { readonly query: E["~Query"]["Type"] })
  & ([E["~Payload"]["Type"]] extends [never] ? {} : { readonly payload: E["~Payload"]["Type"] })
  & { readonly request: HttpServerRequest.HttpServerRequest }
>

/** A handler of one endpoint: its success value (or a response) or a typed failure. */
export type Handler<E extends HttpApiEndpoint.ConstraintRequest> = (
  request: HandlerRequest<E>
) => Effect.Effect<E["~Success"]["Type"] | HttpServerResponse.HttpServerResponse, unknown>

/** Handlers for every endpoint of a group, by endpoint name. */
export type GroupHandlers<Endpoints extends HttpApiEndpoint.ConstraintRequest> = {
  readonly [E in Endpoints as E["identifier"]]: Handler<E>
}

type AnyHandler = (request: unknown) => Effect.Effect<unknown, unknown>

/**
 * What a group's `build` returns to leave its routes unserved (a subsystem
 * switched off by a setting): they answer 404 `not_found` "route not found"
 * after authorization, like the planned routes.
 */
export const NotServed: unique symbol = Symbol.for("svc-gateway/http/NotServed")
export type NotServed = typeof NotServed

/** A group's handlers, built from its services when the routes are registered. */
export interface HttpHandlerGroup<R> {
  readonly group: string
  readonly build: Effect.Effect<Readonly<Record<string, AnyHandler>> | NotServed, never, R>
}

/**
 * Binds handlers to the endpoints of group `name` of `api`. `build` runs
 * once, with the services the handlers need, and must return a handler for
 * every endpoint of the group (checked by the compiler).
 *
 * ```ts
 * export const PolicyHttp = handlers(GatewayApi, "policy", Effect.gen(function*() {
 *   const policy = yield* PolicyService
 *   return { check: ({ payload }) => policy.check(payload) }
 * }))
 * ```
 */
export const handlers = <
  Id extends string,
  Groups extends HttpApiGroup.Constraint,
  const Name extends HttpApiGroup.Identifier<Groups>,
  R
>(
  _api: HttpApi.HttpApi<Id, Groups>,
  name: Name,
  build: Effect.Effect<
    GroupHandlers<Extract<HttpApiGroup.EndpointsWithIdentifier<Groups, Name>, HttpApiEndpoint.ConstraintRequest>> | NotServed,
    never,
    R
  >
): HttpHandlerGroup<R> => ({
  group: name,
  build: build as unknown as Effect.Effect<Readonly<Record<string, AnyHandler>> | NotServed, never, R>
})

/** Any HTTP API declaration. */
export type AnyApi = HttpApi.HttpApi<string, any>

/** One declared route and its access rule, for authorization. */
export interface RouteEntry {
  readonly method: string
  readonly path: string
  readonly access: RouteAccess
  /** `group.endpoint` */
  readonly name: string
}

/**
 * Every endpoint of `apis` with its resolved access (endpoint annotation,
 * else its group's, else the API's). An endpoint without any is a
 * declaration error (thrown).
 */
export const accessTable = (...apis: ReadonlyArray<AnyApi>): ReadonlyArray<RouteEntry> => {
  const entries: Array<RouteEntry> = []
  for (const api of apis) {
    HttpApi.reflect(api as HttpApi.HttpApi<string, HttpApiGroup.Constraint>, {
      onGroup: () => {},
      onEndpoint: ({ endpoint, group, mergedAnnotations }) => {
        const access = mergedAnnotations.mapUnsafe.get(Access.key) as RouteAccess | undefined
        const name = `${group.identifier}.${endpoint.identifier}`
        if (access === undefined) throw new Error(`HTTP endpoint ${name} (${endpoint.method} ${endpoint.path}) declares no Access`)
        entries.push({ method: endpoint.method, path: endpoint.path, access, name })
      }
    })
  }
  return entries
}

/** The success status an endpoint declares (`HttpApiSchema.status`), 200 by default; 204 for no content. */
const successStatus = (successes: ReadonlyMap<number, ReadonlyArray<Schema.Top>>): number => {
  for (const status of successes.keys()) return status
  return 200
}

const decoderOf = (schema: Schema.Top | undefined, label: string): Decoder<unknown> | undefined =>
  schema === undefined ? undefined : makeDecoder(schema as unknown as Schema.ConstraintDecoder<unknown>, { label })

const jsonPayloadSchema = (endpoint: HttpApiEndpoint.Top): Schema.Top | undefined => {
  for (const [contentType, entry] of endpoint.payload) {
    if (contentType === "application/json") return entry.schemas[0]
  }
  return undefined
}

const invalid = (message: string) => Effect.fail(new InvalidRequest({ message }))

const queryRecord = (url: string): Record<string, string | Array<string>> => {
  const q = url.indexOf("?")
  const out: Record<string, string | Array<string>> = {}
  if (q === -1) return out
  for (const [key, value] of new URLSearchParams(url.slice(q + 1))) {
    const existing = out[key]
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
  }
  return out
}

/** Builds the route of one endpoint: decode, handle, encode. */
const makeRoute = (
  endpoint: HttpApiEndpoint.Top,
  status: number,
  handler: AnyHandler,
  optionalBody: boolean
): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext> => {
  const decodeParams = decoderOf(endpoint.params, "path")
  const decodeQuery = decoderOf(endpoint.query, "query")
  const payloadSchema = endpoint.method === "GET" || endpoint.method === "HEAD" ? undefined : jsonPayloadSchema(endpoint)
  const decodePayload = decoderOf(payloadSchema, "body")
  const respond = (result: unknown): HttpServerResponse.HttpServerResponse =>
    HttpServerResponse.isHttpServerResponse(result)
      ? result
      : status === 204 || result === undefined
      ? HttpServerResponse.empty({ status: status === 200 ? 204 : status })
      : json(result, status)

  const withRequest = (request: HttpServerRequest.HttpServerRequest, fields: Record<string, unknown>) =>
    Effect.map(handler({ ...fields, request }), respond)

  const run = (request: HttpServerRequest.HttpServerRequest, fields: Record<string, unknown>) => {
    if (decodeQuery !== undefined) {
      const query = decodeQuery(queryRecord(request.url))
      if (Result.isFailure(query)) return invalid(query.failure)
      fields.query = query.success
    }
    if (decodePayload === undefined) return withRequest(request, fields)
    return Effect.flatMap(request.text, (text) => {
      const parsed = optionalBody && text.trim() === "" ? Result.succeed({}) : parseJsonBody(text)
      if (Result.isFailure(parsed)) return invalid(parsed.failure)
      const payload = decodePayload(parsed.success)
      if (Result.isFailure(payload)) return invalid(payload.failure)
      fields.payload = payload.success
      return withRequest(request, fields)
    })
  }
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    if (decodeParams === undefined) return run(request, {})
    return Effect.flatMap(HttpRouter.params, (raw) => {
      const params = decodeParams(raw)
      return Result.isFailure(params) ? invalid(params.failure) : run(request, { params: params.success })
    })
  })
}

type RouteHandle = Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext>

/**
 * The router's routes. `HttpRouter` serves a `X/*` route at `X` too, so when
 * both are declared (`GET /ui` and `GET /ui/*`) one route is registered that
 * answers with `X`'s handler when the path has no tail, else with `X/*`'s.
 */
const withWildcards = (
  routes: ReadonlyMap<string, { readonly method: string; readonly path: string; readonly handle: RouteHandle }>
): Array<HttpRouter.Route<unknown, unknown>> => {
  const out: Array<HttpRouter.Route<unknown, unknown>> = []
  for (const [key, { method, path, handle }] of routes) {
    const wildcardOf = routes.get(`${key}/*`)
    if (wildcardOf !== undefined) continue
    const base = path.endsWith("/*") ? routes.get(`${method} ${path.slice(0, -2)}`) : undefined
    const route = base === undefined
      ? handle
      : Effect.flatMap(HttpRouter.params, (params) => (params["*"] ?? "") === "" ? base.handle : handle)
    out.push(HttpRouter.route(method as "GET", path as `/${string}`, route))
  }
  return out
}

type GroupServices<Groups extends ReadonlyArray<HttpHandlerGroup<any>>> = Groups[number] extends HttpHandlerGroup<infer R>
  ? R
  : never

/**
 * Registers a route for every endpoint of `api` whose group has handlers in
 * `groups`. Every group of `api` must have handlers, and every handler group
 * must name a group of `api`: a mismatch is a start-up defect naming it.
 */
export const layer = <const Groups extends ReadonlyArray<HttpHandlerGroup<any>>>(
  api: AnyApi,
  groups: Groups
): Layer.Layer<never, never, HttpRouter.HttpRouter | GroupServices<Groups>> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const router = yield* HttpRouter.HttpRouter
    const built = new Map<string, Readonly<Record<string, AnyHandler>> | NotServed>()
    for (const group of groups) built.set(group.group, yield* group.build)
    const routes = new Map<string, { method: string; path: string; handle: RouteHandle }>()
    const problems: Array<string> = []
    const seen = new Set<string>()
    HttpApi.reflect(api as HttpApi.HttpApi<string, HttpApiGroup.Constraint>, {
      onGroup: ({ group }) => {
        seen.add(group.identifier)
        if (!built.has(group.identifier)) problems.push(`HTTP group ${group.identifier} has no handlers`)
      },
      onEndpoint: ({ endpoint, group, successes, mergedAnnotations }) => {
        const handlers = built.get(group.identifier)
        if (handlers === NotServed) return
        const handler = handlers?.[endpoint.identifier]
        if (handler === undefined) return void problems.push(`HTTP endpoint ${group.identifier}.${endpoint.identifier} has no handler`)
        const handle = makeRoute(endpoint, successStatus(successes), handler, mergedAnnotations.mapUnsafe.get(OptionalBody.key) === true)
        routes.set(`${endpoint.method} ${endpoint.path}`, { method: endpoint.method, path: endpoint.path, handle })
      }
    })
    for (const name of built.keys()) if (!seen.has(name)) problems.push(`HTTP handlers for undeclared group ${name}`)
    if (problems.length > 0) return yield* Effect.die(new Error(problems.join("; ")))
    yield* router.addAll(withWildcards(routes))
  }))
