/**
 * The HTTP authorization matrix (gateway-api.md rules 1–6; reference §9.3),
 * derived from the endpoint declarations (src/http/api/).
 */
import { describe, expect, it } from "@effect/vitest"
import { OpenApi } from "effect/http-api"
import { requiredScope } from "../../src/http/api/access.ts"
import { GatewayApi, PlannedApi } from "../../src/app/contracts.ts"
import { makeAccessMatcher } from "../../src/http/authorization.ts"
import { accessTable } from "../../src/http/authorization.ts"
import { PluginRpcRoutes } from "../../services/plugins/transport/rpcRoute.ts"

const routeTable = accessTable(GatewayApi, PlannedApi)
const match = makeAccessMatcher(routeTable)
const required = (method: string, path: string) => {
  const access = match(method, path)
  if (access === undefined) return null
  return requiredScope(access, method) ?? access.kind
}

describe("route table", () => {
  it.each([
    ["GET", "/status", "operator.read"],
    ["GET", "/memory/exports/abc", "operator.read"],
    ["POST", "/watchers", "operator.write"],
    ["POST", "/workflow/run", "operator.write"],
    ["GET", "/approvals", "operator.approvals"],
    ["POST", "/approvals/12/respond", "operator.approvals"],
    ["GET", "/pairings", "operator.pairing"],
    ["POST", "/pairings/3/approve", "operator.pairing"],
    ["GET", "/auth/pins", "operator.admin"],
    ["POST", "/auth/device-tokens/issue", "admin-token"],
    ["GET", "/auth/session", "authenticated"],
    ["GET", "/secrets", "operator.admin"],
    ["POST", "/snapshot/import", "operator.admin"],
    ["POST", "/providers/x/oauth/authorize", "operator.admin"],
    ["GET", "/routing/config", "operator.admin"],
    ["PUT", "/routing/config", "operator.admin"],
    ["POST", "/policy/check", "operator.admin"],
    ["POST", "/models/refresh", "operator.admin"],
    ["GET", "/models/providers/openai/models", "operator.read"],
    ["HEAD", "/status", "operator.read"],
    ["GET", "/status?verbose=1", "operator.read"],
    ["GET", "/plugins/p1", "operator.admin"],
    ["GET", "/runs/r1/artifacts/a1/metadata", "operator.read"],
    ["DELETE", "/watchers/4", "operator.write"]
  ])("%s %s needs %s", (method, path, scope) => {
    expect(required(method, path.split("?")[0])).toBe(scope)
  })

  it.each([
    ["POST", "/app/actions/approvals/1"],
    ["POST", "/app/actions/linking/x"],
    ["POST", "/app/actions/account/delete"],
    ["POST", "/api/account/delete"],
    ["GET", "/unmapped"],
    ["POST", "/unmapped"],
    ["DELETE", "/status"],
    ["GET", "/policy/check"]
  ])("%s %s is absent (deny by default)", (method, path) => {
    expect(required(method, path)).toBeNull()
  })

  it("leaves the plugins' RPC routers to their manifests: any valid token at the middleware, the route's scope in the handler", () => {
    const rpc = makeAccessMatcher(PluginRpcRoutes)
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) expect(rpc(method, "/plugins/p1/rpc/a")?.kind).toBe("authenticated")
  })

  it("makes exactly the spec's allowlist public", () => {
    const publicRoutes = routeTable.filter((r) => r.access.kind === "public").map((r) => `${r.method} ${r.path}`)
    expect([...publicRoutes].sort()).toEqual([
      "GET /healthz",
      "GET /ui",
      "GET /ui/*",
      "POST /auth/session",
      "POST /auth/logout",
      "GET /providers/:provider/oauth/callback"
    ].sort())
    expect(required("GET", "/ui/assets/app.js")).toBe("public")
    expect(required("GET", "/providers/github/oauth/callback")).toBe("public")
  })

  it("declares every endpoint of the OpenAPI document", () => {
    const doc = OpenApi.fromApi(GatewayApi)
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item as object)) {
        if (!["get", "post", "put", "patch", "delete"].includes(method)) continue
        expect(match(method.toUpperCase(), path), `${method} ${path}`).toBeDefined()
      }
    }
  })

  it("has no duplicate rows", () => {
    const keys = routeTable.map((r) => `${r.method} ${r.path}`)
    expect(new Set(keys).size).toBe(keys.length)
  })
})
