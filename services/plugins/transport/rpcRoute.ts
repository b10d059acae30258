/**
 * The plugins' RPC routers at `/plugins/<id>/rpc/<name>` (issue 26 §1;
 * gateway-api.md "Plugins"; docs/plugins.md "RPC routes"), served on the
 * gateway's router beside `GatewayApi` (a plugin's routes are its own JSON,
 * not declared endpoints).
 *
 * Every request is authenticated by the global middleware ({@link PluginRpcRoutes}:
 * any valid token; 404 after authentication while plugins are off, through
 * the `plugin-rpc` group switch). Then the route must be one the plugin's
 * manifest declares (`contributes.routes`, else 404), and a device token
 * needs the route's scope (default `operator.admin`; else 403, audited as
 * `authz.denied`). The handler `rpc[<name>]` of the plugin's entry gets the
 * JSON body (POST, PUT, PATCH; empty is `{}`) or the query parameters (GET,
 * DELETE) and its answer is the 200 JSON body; a failure is 502
 * `plugin_failed`, 504 `plugin_timeout` or 503 `plugin_unavailable`.
 *
 * @module
 */
import { Effect, Result } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { GatewayConfig } from "../../../layers/config.ts"
import { AUTHENTICATED } from "../../../src/http/api/access.ts"
import type { RouteEntry } from "../../../src/http/authorization.ts"
import { authzDenied } from "../../audit/authEvents.ts"
import { CurrentPrincipal, hasScope } from "../../auth/principal.ts"
import { AuditChains, Decision } from "../../domain-events/decisions.ts"
import { DomainEvents } from "../../domain-events/DomainEvents.ts"
import { parseJsonBody } from "../../shared/decode.ts"
import { Forbidden, InvalidRequest, NotFound } from "../../shared/errors.ts"
import { Plugins } from "../Plugins.ts"

/** The route template of every plugin's router. */
export const PLUGIN_RPC_PATH = "/plugins/:id/rpc/*"

/** The group name of the plugin routers' access entries (and of their switch, transport/http.ts). */
export const PLUGIN_RPC_GROUP = "plugin-rpc"

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const
const WITH_BODY = new Set(["POST", "PUT", "PATCH"])

/** What the global middleware knows of the plugin routers: any valid token (the route's scope is checked here). */
export const PluginRpcRoutes: ReadonlyArray<RouteEntry> = METHODS.map((method) => ({
  method,
  path: PLUGIN_RPC_PATH,
  access: AUTHENTICATED,
  // Not the `plugins` group of GatewayApi: the middleware takes a served group's routes as authenticating
  // themselves, while these rely on it.
  group: PLUGIN_RPC_GROUP,
  name: `${PLUGIN_RPC_GROUP}.${method.toLowerCase()}`
}))

/** The request's input: its JSON body, or its query parameters. */
const inputOf = Effect.fnUntraced(function*(request: HttpServerRequest.HttpServerRequest) {
  if (!WITH_BODY.has(request.method)) {
    return Object.fromEntries(new URL(request.url, "http://gateway").searchParams)
  }
  const text = yield* Effect.orDie(request.text)
  if (text.trim() === "") return {}
  const parsed = parseJsonBody(text)
  return Result.isSuccess(parsed) ? parsed.success : yield* Effect.fail(new InvalidRequest({ message: parsed.failure }))
})

/** The plugin routers on the gateway's `HttpRouter`; need {@link Plugins}, `GatewayConfig` and `DomainEvents`. */
export const PluginRpcHttp = HttpRouter.use((router) => Effect.gen(function*() {
  const plugins = yield* Plugins
  const { authEnabled } = yield* GatewayConfig
  const domainEvents = yield* DomainEvents
  const handle = Effect.fnUntraced(function*(request: HttpServerRequest.HttpServerRequest) {
    const params = yield* HttpRouter.params
    const id = params.id ?? ""
    const name = params["*"] ?? ""
    if (name === "" || name.includes("/")) return yield* Effect.fail(new NotFound({ message: `plugin ${id} has no route ${name}` }))
    const route = yield* plugins.route(id, name)
    const principal = yield* CurrentPrincipal
    if (authEnabled && principal !== undefined && !hasScope(principal, route.scope)) {
      const reason = `insufficient scope: ${PLUGIN_RPC_PATH.replace(":id", id).replace("*", name)} requires ${route.scope}`
      yield* domainEvents.publishOrLog(Decision, {
        chain: AuditChains.auth,
        action: authzDenied(principal, { transport: "http", route: PLUGIN_RPC_PATH, method: request.method, required_scope: route.scope, reason })
      })
      return yield* Effect.fail(new Forbidden({ message: reason }))
    }
    const input = yield* inputOf(request)
    const answer = yield* plugins.callRoute(id, name, input)
    return HttpServerResponse.jsonUnsafe(answer ?? null)
  })
  yield* Effect.forEach(METHODS, (method) => router.add(method, PLUGIN_RPC_PATH, handle), { discard: true })
}))
