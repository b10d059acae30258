/** Handlers of `pairing.approve`, `pairing.deny` and `pairing.revoke` (src/ws/api/pairing.ts): one call to `Pairings` each. */
import { Effect } from "effect"
import { resolvedBy } from "../../auth/principal.ts"
import { Pairings } from "../Pairings.ts"
import { PairingApprove, PairingDeny, PairingRevoke } from "./wsApi.ts"
import { handlers } from "../../../src/ws/dispatch.ts"

/** Pairing handlers; need {@link Pairings}. */
export const PairingWs = handlers(
  [PairingApprove, PairingDeny, PairingRevoke],
  Effect.gen(function*() {
    const pairings = yield* Pairings
    return {
      "pairing.approve": ({ pairing_id, ...input }, connection) =>
        Effect.map(pairings.approve(pairing_id, input, resolvedBy("ws", connection.principal)), (pairing) => ({ pairing })),
      "pairing.deny": ({ pairing_id, ...input }, connection) =>
        Effect.map(pairings.deny(pairing_id, input, resolvedBy("ws", connection.principal)), (pairing) => ({ pairing })),
      "pairing.revoke": ({ pairing_id, ...input }, connection) =>
        Effect.map(pairings.revoke(pairing_id, input, resolvedBy("ws", connection.principal)), (pairing) => ({ pairing }))
    }
  })
)
