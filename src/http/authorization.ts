/**
 * HTTP authorization (gateway-api.md "Authentication", rules 1–6), derived
 * from the declarations: every endpoint of the served APIs and of the
 * planned ones, with its access rule (src/http/api/access.ts). A route that
 * is not declared is forbidden to device tokens (deny by default); the admin
 * token bypasses scopes.
 */
import { FindMyWay } from "effect/http"
import { HttpApi, type HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import { hasScope, type Principal } from "../../services/auth/principal.ts"
import { Forbidden } from "../../services/shared/errors.ts"
import { Access, requiredScope, type RouteAccess } from "./api/access.ts"

/** Any HTTP API declaration. */
export type AnyApi = HttpApi.HttpApi<string, any>

/** One declared route and its access rule, for authorization. */
export interface RouteEntry {
  readonly method: string
  readonly path: string
  readonly access: RouteAccess
  /** The declaring group's identifier. */
  readonly group: string
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
        entries.push({ method: endpoint.method, path: endpoint.path, access, group: group.identifier, name })
      }
    })
  }
  return entries
}

/** The access of one served endpoint (endpoint annotation, else its group's); `undefined` when it declares none. */
export const endpointAccess = (endpoint: HttpApiEndpoint.Top, group: HttpApiGroup.Top): RouteAccess | undefined =>
  (endpoint.annotations.mapUnsafe.get(Access.key) ?? group.annotations.mapUnsafe.get(Access.key)) as RouteAccess | undefined

/** The declared access of a request's route; `undefined` when the route is not declared. */
export type AccessMatcher = (method: string, path: string) => RouteAccess | undefined

/**
 * Compiles the route table into a matcher (a radix-tree lookup per request)
 * returning `value(entry)` of the matching entry. HEAD matches like GET.
 */
export const makeRouteMatcher = <A>(
  entries: ReadonlyArray<RouteEntry>,
  value: (entry: RouteEntry) => A
): (method: string, path: string) => A | undefined => {
  const router = FindMyWay.make<A>({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true })
  for (const entry of entries) router.on(entry.method as "GET", entry.path as `/${string}`, value(entry))
  return (method, path) => router.find(method === "HEAD" ? "GET" : method, path)?.handler
}

/** Compiles the route table into an {@link AccessMatcher}. */
export const makeAccessMatcher = (entries: ReadonlyArray<RouteEntry>): AccessMatcher => makeRouteMatcher(entries, (entry) => entry.access)

const unmappedRoute = new Forbidden({ message: "route is not scope-authorized for scoped tokens" })
const nodeToken = new Forbidden({ message: "scoped node tokens are for the WebSocket API only" })
const adminTokenRequired = new Forbidden({ message: "admin token required" })
const insufficient = new Map<string, Forbidden>()

/** Why `principal` may not use a route with `access` (`undefined`: undeclared) and `method`, or `undefined` when it may. */
export const authorizationFailure = (access: RouteAccess | undefined, method: string, principal: Principal): Forbidden | undefined => {
  if (principal.kind === "admin") return undefined
  // Never reached today: AuthService.authenticate does not accept scoped node tokens (HTTP answers 401).
  if (principal.kind === "node") return nodeToken
  if (access === undefined) return unmappedRoute
  if (access.kind === "admin-token") return adminTokenRequired
  const scope = requiredScope(access, method)
  if (scope === undefined || hasScope(principal, scope)) return undefined
  let error = insufficient.get(scope)
  if (error === undefined) {
    error = new Forbidden({ message: `insufficient scope: this route requires ${scope}` })
    insufficient.set(scope, error)
  }
  return error
}
