/**
 * Routing configuration handlers (src/http/api/routing.ts): decode (done by
 * the declaration), one call to `RoutingConfigService`, the record. The
 * change is attributed to the request's principal (`created_by`: `{kind:
 * "admin"}` or `{kind: "device", token_id, device_id}`; never a token).
 * gateway-api.md: these routes exist "only when gateway auth is enabled", so
 * with `SVC_AUTH=off` the group is switched off ({@link RoutingSwitch}: 404
 * `not_found` after authorization, src/http/middleware.ts).
 */
import { RoutingApi } from "./httpApi.ts"
import { Effect } from "effect"
import type { GatewaySettings } from "../../../layers/config.ts"
import { CurrentPrincipal } from "../../auth/principal.ts"
import { actorOf, RoutingConfigService } from "../RoutingConfigService.ts"
import type { RoutingConfigRecord } from "../schema.ts"
import type { HttpGroupSwitch } from "../../../src/http/middleware.ts"
import { json } from "../../../src/http/respond.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

/** The routing routes are served only with gateway auth on. */
export const RoutingSwitch: HttpGroupSwitch = { group: "routing", served: (settings: GatewaySettings) => settings.authEnabled }

/**
 * The record as stored, in the configuration's canonical key order (so an
 * update's answer and a later GET are the same JSON): written as is, not
 * re-encoded by the `RoutingConfigRecord` schema, whose field order differs.
 */
const asStored = (status: number) => (record: RoutingConfigRecord) => json(record, status)

/** Routing handlers; need {@link RoutingConfigService}. */
export const RoutingHttp = group(apiOf(RoutingApi), "routing", (handlers) => Effect.gen(function*() {
  const routing = yield* RoutingConfigService
  return handlers.handleAll({
    get: () => Effect.map(routing.current, asStored(200)),
    update: ({ payload }) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        Effect.map(routing.update({ config: payload.config, reason: payload.reason, created_by: actorOf(principal) }), asStored(201))),
    revert: ({ payload }) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        Effect.map(routing.revert({ revision: payload.revision, reason: payload.reason, created_by: actorOf(principal) }), asStored(201)))
  })
}))
