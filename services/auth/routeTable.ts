/**
 * The HTTP authorization matrix: every route of gateway-api.md "Endpoints"
 * with what a caller needs, including routes later issues implement.
 *
 * Rules (gateway-api.md "Authentication", rules 1–6):
 * 1. admin surfaces need operator.admin; 2. /approvals/* operator.approvals;
 * 3. /pairings/* operator.pairing; 4. other operator surfaces operator.read for
 * GET, operator.write for POST/PUT/PATCH/DELETE; 5. a route absent from this
 * table is forbidden to device tokens (deny by default).
 * The admin token bypasses scopes everywhere.
 */
import { FindMyWay } from "effect/http"

/** What a route requires of its caller. */
export type RouteAccess =
  /** Public allowlist: no token needed. */
  | { readonly kind: "public" }
  /** Any authenticated caller; device tokens need `scope`. */
  | { readonly kind: "scope"; readonly scope: string }
  /** Only the admin token itself (device tokens get 403 "admin token required"). */
  | { readonly kind: "admin-token" }
  /** Any authenticated caller, whatever its scopes (the WS upgrade checks per message). */
  | { readonly kind: "authenticated" }

/** One row of the matrix. Paths use `:param` and a trailing `*` like the spec. */
export interface RouteRule {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "*"
  readonly path: `/${string}`
  readonly access: RouteAccess
}

const PUBLIC: RouteAccess = { kind: "public" }
const ADMIN_TOKEN: RouteAccess = { kind: "admin-token" }
const scope = (s: string): RouteAccess => ({ kind: "scope", scope: s })
const READ = scope("operator.read")
const WRITE = scope("operator.write")
const ADMIN = scope("operator.admin")
const APPROVALS = scope("operator.approvals")
const PAIRING = scope("operator.pairing")

const r = (method: RouteRule["method"], path: RouteRule["path"], access: RouteAccess): RouteRule => ({ method, path, access })

/** Every route of the spec, in the spec's order. */
export const routeTable: ReadonlyArray<RouteRule> = [
  // Public routes
  r("GET", "/healthz", PUBLIC),
  r("GET", "/ui", PUBLIC),
  r("GET", "/ui/*", PUBLIC),
  r("POST", "/auth/session", PUBLIC),
  r("POST", "/auth/logout", PUBLIC),
  r("GET", "/providers/:provider/oauth/callback", PUBLIC),
  // Runtime and diagnostics
  r("GET", "/status", READ),
  r("GET", "/metrics", READ),
  r("GET", "/connections", READ),
  r("GET", "/presence", READ),
  r("GET", "/contracts/jsonschema/catalog.json", READ),
  r("GET", "/contracts/jsonschema/:file", READ),
  r("GET", "/usage", READ),
  r("GET", "/openapi.json", READ),
  r("GET", "/ws", { kind: "authenticated" }),
  // Policy
  r("POST", "/policy/check", ADMIN),
  r("GET", "/policy/bundle", ADMIN),
  r("GET", "/policy/overrides", ADMIN),
  r("POST", "/policy/overrides", ADMIN),
  r("POST", "/policy/overrides/revoke", ADMIN),
  // Approvals
  r("GET", "/approvals", APPROVALS),
  r("GET", "/approvals/:id", APPROVALS),
  r("POST", "/approvals/:id/respond", APPROVALS),
  r("GET", "/approvals/:id/preview", APPROVALS),
  // Pairing
  r("GET", "/pairings", PAIRING),
  r("POST", "/pairings/:id/approve", PAIRING),
  r("POST", "/pairings/:id/deny", PAIRING),
  r("POST", "/pairings/:id/revoke", PAIRING),
  // Auth profiles and session pins
  r("GET", "/auth/profiles", ADMIN),
  r("POST", "/auth/profiles", ADMIN),
  r("PATCH", "/auth/profiles/:id", ADMIN),
  r("POST", "/auth/profiles/:id/disable", ADMIN),
  r("POST", "/auth/profiles/:id/enable", ADMIN),
  r("GET", "/auth/pins", ADMIN),
  r("POST", "/auth/pins", ADMIN),
  // Device tokens (admin token required)
  r("POST", "/auth/device-tokens/issue", ADMIN_TOKEN),
  r("POST", "/auth/device-tokens/revoke", ADMIN_TOKEN),
  // Provider OAuth
  r("POST", "/providers/:provider/oauth/authorize", ADMIN),
  // Routing configuration
  r("GET", "/routing/config", ADMIN),
  r("PUT", "/routing/config", ADMIN),
  r("POST", "/routing/config/revert", ADMIN),
  // Secrets
  r("POST", "/secrets", ADMIN),
  r("GET", "/secrets", ADMIN),
  r("DELETE", "/secrets/:id", ADMIN),
  r("POST", "/secrets/:id/rotate", ADMIN),
  // Snapshots
  r("GET", "/snapshot/export", ADMIN),
  r("POST", "/snapshot/import", ADMIN),
  // Memory exports
  r("GET", "/memory/exports/:id", READ),
  // Model catalog
  r("GET", "/models/status", READ),
  r("POST", "/models/refresh", ADMIN),
  r("GET", "/models/providers", READ),
  r("GET", "/models/providers/:id", READ),
  r("GET", "/models/providers/:id/models", READ),
  // Plugins (and plugin-defined routers)
  r("GET", "/plugins", ADMIN),
  r("GET", "/plugins/:id", ADMIN),
  r("*", "/plugins/:id/rpc/*", ADMIN),
  // Plan runner and workflow engine
  r("POST", "/plan", WRITE),
  r("POST", "/workflow/run", WRITE),
  r("POST", "/workflow/resume", WRITE),
  r("POST", "/workflow/cancel", WRITE),
  // Playbooks
  r("GET", "/playbooks", READ),
  r("GET", "/playbooks/:id", READ),
  r("POST", "/playbooks/:id/run", WRITE),
  r("POST", "/playbooks/runtime", WRITE),
  r("POST", "/playbooks/:id/execute", WRITE),
  // Watchers
  r("POST", "/watchers", WRITE),
  r("GET", "/watchers", READ),
  r("PATCH", "/watchers/:id", WRITE),
  r("DELETE", "/watchers/:id", WRITE),
  r("POST", "/watchers/:id/trigger/webhook", WRITE),
  // Canvas artifacts
  r("POST", "/canvas/publish", WRITE),
  r("GET", "/canvas/:id", READ),
  r("GET", "/canvas/:id/meta", READ),
  // Artifacts
  r("GET", "/artifacts/:id/metadata", READ),
  r("GET", "/artifacts/:id", READ),
  r("GET", "/runs/:runId/artifacts/:id/metadata", READ),
  r("GET", "/runs/:runId/artifacts/:id", READ),
  // Agent runtime and context
  r("GET", "/agent/status", READ),
  r("POST", "/agent/turn", WRITE),
  r("GET", "/context", READ),
  r("GET", "/context/list", READ),
  r("GET", "/context/detail/:id", READ),
  // Ingress
  r("POST", "/ingress/messenger", WRITE),
  // Audit
  r("GET", "/audit/export/:planId", ADMIN),
  r("POST", "/audit/verify", ADMIN),
  r("POST", "/audit/forget", ADMIN)
]

/** The result of matching a request against the table. */
export interface RouteMatch {
  readonly rule: RouteRule
}

/**
 * Compiles a table into a matcher (built once; a radix-tree lookup per
 * request). HEAD matches like GET. `undefined` means the route is not in the
 * table: deny by default for device tokens.
 */
export const makeRouteMatcher = (table: ReadonlyArray<RouteRule> = routeTable) => {
  const router = FindMyWay.make<RouteRule>({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true })
  for (const rule of table) {
    if (rule.method === "*") router.all(rule.path, rule)
    else router.on(rule.method, rule.path, rule)
  }
  return (method: string, url: string): RouteRule | undefined =>
    router.find(method === "HEAD" ? "GET" : method, url)?.handler
}
