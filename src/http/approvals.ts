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
import { group, orDieSql } from "./serve.ts"

/** Approvals handlers; need {@link Approvals}. */
export const ApprovalsHttp = group(GatewayApi, "approvals", (handlers) => Effect.gen(function*() {
  const approvals = yield* Approvals
  return handlers.handleAll({
    list: ({ query }) => Effect.map(orDieSql(approvals.listByStatus(query.status ?? "pending")), (list) => ({ approvals: list })),
    get: ({ params }) => Effect.map(orDieSql(approvals.get(params.id)), (approval) => ({ approval })),
    respond: ({ params, payload }) =>
      Effect.gen(function*() {
        const input = fromRespondRequest(payload)
        if (Result.isFailure(input)) return yield* new InvalidRequest({ message: input.failure })
        const principal = yield* CurrentPrincipal
        return yield* orDieSql(approvals.respond(params.id, input.success, resolvedBy("http", principal)))
      }),
    preview: ({ params }) =>
      Effect.map(orDieSql(approvals.get(params.id)), (a) => ({
        id: a.id,
        plan_id: a.plan_id,
        step_index: a.step_index,
        prompt: a.prompt,
        context: a.context,
        status: a.status,
        expires_at: a.expires_at
      }))
  })
}))
