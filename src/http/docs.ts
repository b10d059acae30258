/** `GET /openapi.json` (src/http/api/docs.ts): the OpenAPI document generated from `GatewayApi`, once. */
import { Effect } from "effect"
import { OpenApi } from "effect/http-api"
import { GatewayApi } from "./api/index.ts"
import { handlers } from "./router.ts"

/** Docs handlers; need nothing. */
export const DocsHttp = handlers(GatewayApi, "docs", Effect.sync(() => {
  let document: Record<string, unknown> | undefined
  return { openapi: () => Effect.sync(() => (document ??= OpenApi.fromApi(GatewayApi) as unknown as Record<string, unknown>)) }
}))
