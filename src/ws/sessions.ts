/** Handlers of the session-level request types (src/ws/api/sessions.ts): ping, presence.beacon, capability.ready. */
import { Effect } from "effect"
import { Capabilities } from "../../services/ws-sessions/Capabilities.ts"
import { Presence } from "../../services/ws-sessions/Presence.ts"
import { CapabilityReady, Ping, PresenceBeacon } from "./api/sessions.ts"
import { handlers } from "./dispatch.ts"

/** Session handlers; need {@link Presence} and {@link Capabilities}. */
export const SessionsWs = handlers(
  [Ping, PresenceBeacon, CapabilityReady],
  Effect.gen(function*() {
    const presence = yield* Presence
    const capabilities = yield* Capabilities
    return {
      ping: () => Effect.void,
      "presence.beacon": (beacon, connection) =>
        Effect.map(
          presence.upsert({ deviceId: connection.deviceId, role: connection.role, reason: "periodic", beacon }),
          (entry) => ({ entry })
        ),
      "capability.ready": (request, connection) => Effect.asVoid(capabilities.declareReady(connection, request.capabilities))
    }
  })
)
