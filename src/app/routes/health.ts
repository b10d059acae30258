/** `GET /healthz` (src/http/api/health.ts): `{status: "ok", is_exposed}`. */
import { HealthApi } from "./healthApi.ts"
import { Effect } from "effect"
import { GatewayConfig } from "../../../layers/config.ts"
import { apiOf, group } from "../../http/serve.ts"

/** Health handlers; need {@link GatewayConfig}. */
export const HealthHttp = group(apiOf(HealthApi), "health", (handlers) => Effect.gen(function*() {
  const settings = yield* GatewayConfig
  const body = { status: "ok", is_exposed: settings.isExposed } as const
  return handlers.handleAll({ healthz: () => Effect.succeed(body) })
}))
