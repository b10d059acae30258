/** Handlers of the session-level request types (src/ws/api/sessions.ts): ping, presence.beacon. */
import { Effect } from "effect"
import { Presence } from "../Presence.ts"
import { Ping, PresenceBeacon } from "./wsApi.ts"
import { handlers } from "../../../src/ws/dispatch.ts"

/** Session handlers; need {@link Presence}. */
export const SessionsWs = handlers(
  [Ping, PresenceBeacon],
  Effect.gen(function*() {
    const presence = yield* Presence
    return {
      ping: () => Effect.void,
      "presence.beacon": (beacon, connection) =>
        Effect.map(
          presence.upsert({ deviceId: connection.deviceId, role: connection.role, reason: "periodic", beacon }),
          (entry) => ({ entry })
        )
    }
  })
)
