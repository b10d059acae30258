/**
 * Auth profile and session pin handlers (src/http/api/authProfiles.ts):
 * decode (done by the declaration), one call to `AuthProfiles`, the record as
 * is. `POST /auth/pins` answers 201 `{status, pin}` when it sets a pin and
 * 200 `{status, cleared}` when `profile_id` is null. With
 * `SVC_AUTH_PROFILES=off` (`authProfilesEnabled: false`) the routes are not
 * served (`NotServed`): after authorization they answer 404 `not_found`
 * "route not found", whatever the request, like the planned routes.
 */
import { Effect } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { AuthProfiles } from "../../services/auth-profiles/AuthProfiles.ts"
import { GatewayApi } from "./api/index.ts"
import { json } from "./respond.ts"
import { handlers, NotServed } from "./router.ts"

/** Auth profile handlers; need {@link AuthProfiles} and `GatewayConfig`. */
export const AuthProfilesHttp = handlers(GatewayApi, "authProfiles", Effect.gen(function*() {
  const settings = yield* GatewayConfig
  if (!settings.authProfilesEnabled) return NotServed
  const profiles = yield* AuthProfiles
  return {
    list: ({ query }) => Effect.map(profiles.list(query), (list) => ({ profiles: list })),
    create: ({ payload }) => Effect.map(profiles.create(payload), (profile) => ({ profile })),
    update: ({ params, payload }) => Effect.map(profiles.update(params.id, payload), okBody),
    disable: ({ params, payload }) => Effect.map(profiles.disable(params.id, payload.reason), okBody),
    enable: ({ params }) => Effect.map(profiles.enable(params.id), okBody),
    listPins: ({ query }) => Effect.map(profiles.listPins(query), (pins) => ({ pins })),
    setPin: ({ payload }) =>
      payload.profile_id === null
        ? Effect.map(profiles.clearPin(payload), (cleared) => json({ status: "ok", cleared }, 200))
        : Effect.map(profiles.setPin({ ...payload, profile_id: payload.profile_id }), (pin) => ({ status: "ok" as const, pin }))
  }
}))

const okBody = <P>(profile: P) => ({ status: "ok" as const, profile })
