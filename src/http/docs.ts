/** `GET /openapi.json` (src/http/api/docs.ts): the OpenAPI document generated from `GatewayApi` (src/http/openapi.ts), once. */
import { Effect } from "effect"
import { GatewayApi } from "./api/index.ts"
import { openApiDocument } from "./openapi.ts"
import { handlers } from "./router.ts"

/** Docs handlers; need nothing. */
export const DocsHttp = handlers(GatewayApi, "docs", Effect.sync(() => {
  let document: Record<string, unknown> | undefined
  return { openapi: () => Effect.sync(() => (document ??= openApiDocument())) }
}))
