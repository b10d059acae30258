/** `GET /status`, `GET /metrics`, `GET /usage` (src/http/api/runtime.ts): one call to `Diagnostics` each. */
import { RuntimeApi } from "./httpApi.ts"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { Diagnostics, PROMETHEUS_CONTENT_TYPE } from "../Diagnostics.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

/** Runtime handlers; need {@link Diagnostics}. */
export const RuntimeHttp = group(apiOf(RuntimeApi), "runtime", (handlers) => Effect.gen(function*() {
  const diagnostics = yield* Diagnostics
  return handlers.handleAll({
    status: () => diagnostics.status,
    metrics: () => Effect.map(diagnostics.metrics, (text) => HttpServerResponse.text(text, { contentType: PROMETHEUS_CONTENT_TYPE })),
    usage: ({ query }) => diagnostics.usage(query)
  })
}))
