/**
 * Approvals handlers (src/http/api/approvals.ts): decode (done by the
 * declaration), one call to `Approvals`, the record as is. `resolved_by` of a
 * decision names the caller (`admin` or the device id), never its token.
 */
import { Effect, Result } from "effect"
import { Approvals, resolvedBy } from "../../services/approvals/Approvals.ts"
import { fromRespondRequest } from "../../services/approvals/decisions.ts"
import { CurrentPrincipal } from "../../services/auth/principal.ts"
import { InvalidRequest } from "../../services/shared/errors.ts"
import { GatewayApi } from "./api/index.ts"
import { handlers } from "./router.ts"

/** Approvals handlers; need {@link Approvals}. */
export const ApprovalsHttp = handlers(GatewayApi, "approvals", Effect.gen(function*() {
  const approvals = yield* Approvals
  return {
    list: ({ query }) => Effect.map(approvals.listByStatus(query.status ?? "pending"), (list) => ({ approvals: list })),
    get: ({ params }) => Effect.map(approvals.get(params.id), (approval) => ({ approval })),
    respond: ({ params, payload }) =>
      Effect.gen(function*() {
        const input = fromRespondRequest(payload)
        if (Result.isFailure(input)) return yield* new InvalidRequest({ message: input.failure })
        const principal = yield* CurrentPrincipal
        return yield* approvals.respond(params.id, input.success, resolvedBy("http", principal))
      }),
    preview: ({ params }) =>
      Effect.map(approvals.get(params.id), (a) => ({
        id: a.id,
        plan_id: a.plan_id,
        step_index: a.step_index,
        prompt: a.prompt,
        context: a.context,
        status: a.status,
        expires_at: a.expires_at
      }))
  }
}))
