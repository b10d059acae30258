/**
 * Every other route of gateway-api.md "Endpoints", declared with its access
 * rule but not served yet. Declaring them keeps authorization exact before
 * they exist: a device token without the route's scope gets 403, with it the
 * route answers 404 `not_found`. When a subsystem lands, its routes move from
 * here into its own group with full schemas (src/http/api/<subsystem>.ts).
 * They are not part of the OpenAPI document or the typed client.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Access, AUTHENTICATED, type RouteAccess } from "./access.ts"

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

const group = (name: string, access: RouteAccess, routes: ReadonlyArray<readonly [Method, `/${string}`]>) =>
  HttpApiGroup.make(name)
    .add(...(routes.map(([method, path]) => HttpApiEndpoint.make(method)(`${method} ${path}`, path)) as unknown as [HttpApiEndpoint.Top]))
    .annotate(Access, access)

/** The spec's routes that are declared but not implemented yet, by area. */
export const PlannedApi = HttpApi.make("svc-gateway-planned")
  // Served by the upgrade listener (src/ws/server.ts); a plain GET answers 404 after authentication.
  .add(group("websocket", AUTHENTICATED, [["GET", "/ws"]]))
