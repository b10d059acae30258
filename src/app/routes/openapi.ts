/**
 * The OpenAPI 3.1 document of the gateway (`GET /openapi.json`), generated
 * from `GatewayApi` by Effect's `OpenApi.fromApi`, then completed from the
 * same declarations: `info.version` is the package's version
 * (`GATEWAY_VERSION`, kept equal to package.json by a test), and every
 * operation gets `x-svc-access` (what a device token needs: a scope, or
 * `public`, `admin-token`, `authenticated`) and its example
 * (src/http/api/examples.ts) as `x-codeSamples` (curl) plus the request
 * body's and the answer's `example`. docs/api.md is generated from the same
 * declarations (scripts/apiReference.ts).
 */
import { OpenApi } from "effect/http-api"
import { GATEWAY_VERSION } from "../../../layers/config.ts"
import { accessLabel, documentedEndpoints, exampleCommand } from "../../http/api/examples.ts"
import { GatewayApi } from "../contracts.ts"

type Json = Record<string, any>

/** The OpenAPI path of a declared path: `:name` becomes `{name}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}")

/** Builds the document (a fresh object on every call; the handler builds it once). */
export const openApiDocument = (): Json => {
  const spec = OpenApi.fromApi(GatewayApi) as unknown as Json
  spec.info.version = GATEWAY_VERSION
  for (const endpoint of documentedEndpoints(GatewayApi)) {
    const operation: Json | undefined = spec.paths[openApiPath(endpoint.path)]?.[endpoint.method.toLowerCase()]
    if (operation === undefined) continue
    operation["x-svc-access"] = accessLabel(endpoint.access, endpoint.method)
    const example = endpoint.example
    if (example === undefined) continue
    operation["x-codeSamples"] = [
      { lang: "Shell", label: "curl", source: exampleCommand(endpoint.method, endpoint.path, endpoint.access, example) }
    ]
    const body = operation.requestBody?.content?.["application/json"]
    if (body !== undefined && example.body !== undefined && typeof example.body !== "string") body.example = example.body
    const answer = example.response ?? example.text
    const content: Json | undefined = operation.responses?.[example.status ?? endpoint.successStatus]?.content
    const media = content === undefined ? undefined : Object.values(content)[0]
    if (media !== undefined && answer !== undefined) media.example = answer
  }
  return spec
}
