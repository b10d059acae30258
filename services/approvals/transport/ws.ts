/** Handlers of `approval.list` and `approval.resolve` (src/ws/api/approvals.ts): one call to `Approvals` each. */
import { Effect } from "effect"
import { Approvals, resolvedBy } from "../Approvals.ts"
import { ApprovalList, ApprovalResolve } from "./wsApi.ts"
import { handlers } from "../../../src/ws/dispatch.ts"

/** Approvals handlers; need {@link Approvals}. */
export const ApprovalsWs = handlers(
  [ApprovalList, ApprovalResolve],
  Effect.gen(function*() {
    const approvals = yield* Approvals
    return {
      "approval.list": (request) => approvals.list(request),
      "approval.resolve": ({ approval_id, ...input }, connection) =>
        approvals.respond(approval_id, input, resolvedBy("ws", connection.principal))
    }
  })
)
