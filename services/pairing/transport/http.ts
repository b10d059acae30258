/**
 * Pairing handlers (src/http/api/pairing.ts): decode (done by the
 * declaration), one call to `Pairings`, `{status: "ok", …}`. `resolved_by`
 * names the caller (`admin` or the device id), never its token.
 */
import { PairingApi } from "./httpApi.ts"
import { Effect } from "effect"
import { CurrentPrincipal, resolvedBy } from "../../auth/principal.ts"
import { Pairings } from "../Pairings.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

const ok = <A>(pairing: A) => ({ status: "ok", pairing }) as const

/** Pairing handlers; need {@link Pairings}. */
export const PairingHttp = group(apiOf(PairingApi), "pairing", (handlers) => Effect.gen(function*() {
  const pairings = yield* Pairings
  const by = Effect.gen(function*() {
    return resolvedBy("http", yield* CurrentPrincipal)
  })
  return handlers.handleAll({
    list: ({ query }) => Effect.map(pairings.list({ status: query.status }), (list) => ({ status: "ok", pairings: list }) as const),
    approve: ({ params, payload }) => Effect.flatMap(by, (who) => Effect.map(pairings.approve(params.id, payload, who), ok)),
    deny: ({ params, payload }) => Effect.flatMap(by, (who) => Effect.map(pairings.deny(params.id, payload, who), ok)),
    revoke: ({ params, payload }) => Effect.flatMap(by, (who) => Effect.map(pairings.revoke(params.id, payload, who), ok))
  })
}))
