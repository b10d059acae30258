/** `POST /plan` (src/http/api/plan.ts): the decoded request to `Planner.plan`. */
import { Effect } from "effect"
import { Planner } from "../../services/planner/Planner.ts"
import { GatewayApi } from "./api/index.ts"
import { group, orDieSql } from "./serve.ts"

/** Plan handlers; need {@link Planner}. */
export const PlanHttp = group(GatewayApi, "plan", (handlers) => Effect.gen(function*() {
  const planner = yield* Planner
  return handlers.handleAll({ plan: ({ payload }) => orDieSql(planner.plan(payload)) })
}))
