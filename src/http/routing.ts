/**
 * Routing configuration handlers (src/http/api/routing.ts): decode (done by
 * the declaration), one call to `RoutingConfigService`, the record. The
 * change is attributed to the request's principal (`created_by`: `{kind:
 * "admin"}` or `{kind: "device", token_id, device_id}`; never a token).
 * gateway-api.md: these routes exist "only when gateway auth is enabled", so
 * with `SVC_AUTH=off` the group is switched off ({@link RoutingSwitch}: 404
 * `not_found` after authorization, src/http/middleware.ts).
 */
import { Effect } from "effect"
import type { GatewaySettings } from "../../layers/config.ts"
import { CurrentPrincipal } from "../../services/auth/principal.ts"
import { actorOf, RoutingConfigService } from "../../services/routing/RoutingConfigService.ts"
import { GatewayApi } from "./api/index.ts"
import type { HttpGroupSwitch } from "./middleware.ts"
import { group } from "./serve.ts"

/** The routing routes are served only with gateway auth on. */
export const RoutingSwitch: HttpGroupSwitch = { group: "routing", served: (settings: GatewaySettings) => settings.authEnabled }

/** Routing handlers; need {@link RoutingConfigService}. */
export const RoutingHttp = group(GatewayApi, "routing", (handlers) => Effect.gen(function*() {
  const routing = yield* RoutingConfigService
  return handlers.handleAll({
    get: () => routing.current,
    update: ({ payload }) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        routing.update({ config: payload.config, reason: payload.reason, created_by: actorOf(principal) })),
    revert: ({ payload }) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        routing.revert({ revision: payload.revision, reason: payload.reason, created_by: actorOf(principal) }))
  })
}))
