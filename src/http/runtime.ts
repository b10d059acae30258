/** `GET /status`, `GET /metrics`, `GET /usage` (src/http/api/runtime.ts): one call to `Diagnostics` each. */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { Diagnostics, PROMETHEUS_CONTENT_TYPE } from "../../services/diagnostics/Diagnostics.ts"
import { GatewayApi } from "./api/index.ts"
import { group } from "./serve.ts"

/** Runtime handlers; need {@link Diagnostics}. */
export const RuntimeHttp = group(GatewayApi, "runtime", (handlers) => Effect.gen(function*() {
  const diagnostics = yield* Diagnostics
  return handlers.handleAll({
    status: () => diagnostics.status,
    metrics: () => Effect.map(diagnostics.metrics, (text) => HttpServerResponse.text(text, { contentType: PROMETHEUS_CONTENT_TYPE })),
    usage: ({ query }) => diagnostics.usage(query)
  })
}))
