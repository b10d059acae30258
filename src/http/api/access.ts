/**
 * What a route requires of its caller (gateway-api.md "Authentication",
 * rules 1–6), declared on each `HttpApiGroup` (and overridable per endpoint)
 * with the {@link Access} annotation. Authorization is derived from it:
 *
 * - `public`: no token (the spec's public allowlist);
 * - `scope`: any authenticated caller; device tokens need `scope`;
 * - `operator`: rule 4's default for other operator surfaces: device tokens
 *   need `operator.read` for GET/HEAD, `operator.write` for POST, PUT, PATCH
 *   and DELETE;
 * - `admin-token`: only the admin token itself (device tokens get 403
 *   "admin token required");
 * - `authenticated`: any valid token, whatever its scopes.
 *
 * The admin token bypasses scopes everywhere. A route that is not declared
 * at all is forbidden to device tokens (rule 5, deny by default).
 */
import { Context } from "effect"

/** A route's access rule. */
export type RouteAccess =
  | { readonly kind: "public" }
  | { readonly kind: "scope"; readonly scope: string }
  | { readonly kind: "operator" }
  | { readonly kind: "admin-token" }
  | { readonly kind: "authenticated" }

/** The access annotation of groups and endpoints. Every declared endpoint must resolve to one (a test checks). */
export const Access = Context.Reference<RouteAccess | undefined>("svc-gateway/http/Access", {
  defaultValue: () => undefined
})

/** No token needed. */
export const PUBLIC: RouteAccess = { kind: "public" }
/** Only the admin token. */
export const ADMIN_TOKEN: RouteAccess = { kind: "admin-token" }
/** Any valid token. */
export const AUTHENTICATED: RouteAccess = { kind: "authenticated" }
/** Rule 4: operator.read for reads, operator.write for writes. */
export const OPERATOR: RouteAccess = { kind: "operator" }
/** Device tokens need `scope`. */
export const scope = (scope: string): RouteAccess => ({ kind: "scope", scope })

/** The scope a device token needs for `method` under `access`, when the access is scope-based. */
export const requiredScope = (access: RouteAccess, method: string): string | undefined => {
  switch (access.kind) {
    case "scope":
      return access.scope
    case "operator":
      return method === "GET" || method === "HEAD" || method === "OPTIONS" ? "operator.read" : "operator.write"
    default:
      return undefined
  }
}

/**
 * Marks an endpoint whose JSON body is optional: an empty (or blank) body is
 * decoded as `{}` by the router (e.g. `POST /playbooks/:id/execute`, "optional
 * JSON" in gateway-api.md). Other endpoints answer 400 to an empty body.
 */
export const OptionalBody = Context.Reference<boolean>("svc-gateway/http/OptionalBody", {
  defaultValue: () => false
})
