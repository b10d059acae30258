/** `GET /openapi.json` (src/http/api/docs.ts): the OpenAPI document generated from `GatewayApi` (src/http/openapi.ts), once. */
import { DocsApi } from "./docsApi.ts"
import { Effect } from "effect"
import { openApiDocument } from "./openapi.ts"
import { apiOf, group } from "../../http/serve.ts"

/** Docs handlers; need nothing. */
export const DocsHttp = group(apiOf(DocsApi), "docs", (handlers) => Effect.sync(() => {
  let document: Record<string, unknown> | undefined
  return handlers.handleAll({ openapi: () => Effect.sync(() => (document ??= openApiDocument())) })
}))
