/**
 * Approvals handlers (src/http/api/approvals.ts): decode (done by the
 * declaration), one call to `Approvals`, the record as is. `resolved_by` of a
 * decision names the caller (`admin` or the device id), never its token.
 */
import { ApprovalsApi } from "./httpApi.ts"
import { Effect, Result } from "effect"
import { Approvals, resolvedBy } from "../Approvals.ts"
import { fromRespondRequest } from "../decisions.ts"
import { CurrentPrincipal } from "../../auth/principal.ts"
import { InvalidRequest } from "../../shared/errors.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

/** Approvals handlers; need {@link Approvals}. */
export const ApprovalsHttp = group(apiOf(ApprovalsApi), "approvals", (handlers) => Effect.gen(function*() {
  const approvals = yield* Approvals
  return handlers.handleAll({
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
  })
}))
