/** `GET /healthz` (src/http/api/health.ts): `{status: "ok", is_exposed}`. */
import { Effect } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { GatewayApi } from "./api/index.ts"
import { group } from "./serve.ts"

/** Health handlers; need {@link GatewayConfig}. */
export const HealthHttp = group(GatewayApi, "health", (handlers) => Effect.gen(function*() {
  const settings = yield* GatewayConfig
  const body = { status: "ok", is_exposed: settings.isExposed } as const
  return handlers.handleAll({ healthz: () => Effect.succeed(body) })
}))
