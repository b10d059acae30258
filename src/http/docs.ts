/** `GET /openapi.json` (src/http/api/docs.ts): the OpenAPI document generated from `GatewayApi` (src/http/openapi.ts), once. */
import { Effect } from "effect"
import { GatewayApi } from "./api/index.ts"
import { openApiDocument } from "./openapi.ts"
import { group } from "./serve.ts"

/** Docs handlers; need nothing. */
export const DocsHttp = group(GatewayApi, "docs", (handlers) => Effect.sync(() => {
  let document: Record<string, unknown> | undefined
  return handlers.handleAll({ openapi: () => Effect.sync(() => (document ??= openApiDocument())) })
}))
