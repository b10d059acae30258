/** `POST /plan` (src/http/api/plan.ts): the decoded request to `Planner.plan`. */
import { Effect } from "effect"
import { Planner } from "../../services/planner/Planner.ts"
import { GatewayApi } from "./api/index.ts"
import { handlers } from "./router.ts"

/** Plan handlers; need {@link Planner}. */
export const PlanHttp = handlers(GatewayApi, "plan", Effect.gen(function*() {
  const planner = yield* Planner
  return { plan: ({ payload }) => planner.plan(payload) }
}))
