/**
 * Auth profile and session pin handlers (src/http/api/authProfiles.ts):
 * decode (done by the declaration), one call to `AuthProfiles`, the record as
 * is. `POST /auth/pins` answers 201 `{status, pin}` when it sets a pin and
 * 200 `{status, cleared}` when `profile_id` is null. With
 * `SVC_AUTH_PROFILES=off` (`authProfilesEnabled: false`) the group is
 * switched off ({@link AuthProfilesSwitch}): after authorization its routes
 * answer 404 `not_found` "route not found", whatever the request, like the
 * planned routes (src/http/middleware.ts).
 */
import { AuthProfilesApi } from "./httpApi.ts"
import { Effect } from "effect"
import type { GatewaySettings } from "../../../layers/config.ts"
import { AuthProfiles } from "../AuthProfiles.ts"
import { json } from "../../../src/http/respond.ts"
import type { HttpGroupSwitch } from "../../../src/http/middleware.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

/** The auth profile routes are served only with `authProfilesEnabled`. */
export const AuthProfilesSwitch: HttpGroupSwitch = {
  group: "authProfiles",
  served: (settings: GatewaySettings) => settings.authProfilesEnabled
}

/** Auth profile handlers; need {@link AuthProfiles}. */
export const AuthProfilesHttp = group(apiOf(AuthProfilesApi), "authProfiles", (handlers) => Effect.gen(function*() {
  const profiles = yield* AuthProfiles
  return handlers.handleAll({
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
  })
}))

const okBody = <P>(profile: P) => ({ status: "ok" as const, profile })
