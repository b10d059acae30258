/**
 * How to authenticate is part of the declaration (src/http/api/security.ts):
 * the OpenAPI document names the two security schemes, every protected
 * operation lists them (either is enough) and public operations list none.
 * Handlers are typed by the declaration: failing with an error the endpoint
 * does not declare does not compile.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { OpenApi } from "effect/http-api"
import { GatewayApi } from "../../src/app/contracts.ts"
import { accessTable } from "../../src/http/authorization.ts"
import { openApiPath } from "../../src/app/routes/openapi.ts"
import { group } from "../../src/http/serve.ts"
import { NotFound } from "../../services/shared/errors.ts"

const spec = OpenApi.fromApi(GatewayApi) as unknown as {
  readonly components: { readonly securitySchemes: Record<string, unknown> }
  readonly paths: Record<string, Record<string, { readonly security?: ReadonlyArray<Record<string, ReadonlyArray<string>>> }>>
}
const operation = (method: string, path: string) => spec.paths[openApiPath(path)][method.toLowerCase()]

describe("OpenAPI security", () => {
  it("declares the bearer token and the svc_admin_token cookie", () => {
    expect(spec.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: "http", scheme: "Bearer" }),
      cookie: expect.objectContaining({ type: "apiKey", in: "cookie", name: "svc_admin_token" })
    })
  })

  it("lists either scheme on a protected operation", () => {
    expect(operation("POST", "/policy/check").security).toEqual([{ bearer: [] }, { cookie: [] }])
    expect(operation("POST", "/auth/device-tokens/issue").security).toEqual([{ bearer: [] }, { cookie: [] }])
  })

  it("lists a scheme exactly on the non-public operations", () => {
    for (const entry of accessTable(GatewayApi)) {
      const security = operation(entry.method, entry.path).security ?? []
      expect([entry.name, security.length]).toEqual([entry.name, entry.access.kind === "public" ? 0 : 2])
    }
    expect(operation("GET", "/healthz").security ?? []).toEqual([])
    expect(operation("POST", "/auth/session").security ?? []).toEqual([])
    expect(operation("GET", "/providers/:provider/oauth/callback").security ?? []).toEqual([])
  })
})

describe("handlers are typed by the declaration", () => {
  it("refuses a handler that fails with an undeclared error", () => {
    // `GET /healthz` declares no error: failing with NotFound is a compile error (checked by tsc).
    const build = () =>
      group(GatewayApi, "health", (handlers) =>
        handlers.handleAll({
          // @ts-expect-error NotFound is not an error of health.healthz
          healthz: () => Effect.fail(new NotFound({ message: "no" }))
        }))
    expect(typeof build).toBe("function")
  })
})
