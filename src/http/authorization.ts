/**
 * HTTP authorization (gateway-api.md "Authentication", rules 1–6), derived
 * from the declarations: every endpoint of the served APIs and of the
 * planned ones, with its access rule (src/http/api/access.ts). A route that
 * is not declared is forbidden to device tokens (deny by default); the admin
 * token bypasses scopes.
 */
import { FindMyWay } from "effect/http"
import { hasScope, type Principal } from "../../services/auth/principal.ts"
import { Forbidden } from "../../services/shared/errors.ts"
import { requiredScope, type RouteAccess } from "./api/access.ts"
import type { RouteEntry } from "./router.ts"

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
