/**
 * Routing configuration handlers (src/http/api/routing.ts): decode (done by
 * the declaration), one call to `RoutingConfigService`, the record. The
 * change is attributed to the request's principal (`created_by`: `{kind:
 * "admin"}` or `{kind: "device", token_id, device_id}`; never a token).
 * gateway-api.md: these routes exist "only when gateway auth is enabled", so
 * with `SVC_AUTH=off` they are not served (`NotServed`: 404 `not_found`).
 */
import { Effect } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { CurrentPrincipal } from "../../services/auth/principal.ts"
import { actorOf, RoutingConfigService } from "../../services/routing/RoutingConfigService.ts"
import { GatewayApi } from "./api/index.ts"
import { handlers, NotServed } from "./router.ts"

/** Routing handlers; need {@link RoutingConfigService} and `GatewayConfig`. */
export const RoutingHttp = handlers(GatewayApi, "routing", Effect.gen(function*() {
  const settings = yield* GatewayConfig
  if (!settings.authEnabled) return NotServed
  const routing = yield* RoutingConfigService
  return {
    get: () => routing.current,
    update: ({ payload }) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        routing.update({ config: payload.config, reason: payload.reason, created_by: actorOf(principal) })),
    revert: ({ payload }) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        routing.revert({ revision: payload.revision, reason: payload.reason, created_by: actorOf(principal) }))
  }
}))
