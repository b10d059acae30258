/** `POST /plan` (src/http/api/plan.ts): the decoded request to `Planner.plan`. */
import { PlanApi } from "./httpApi.ts"
import { Effect } from "effect"
import { Planner } from "../Planner.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

/** Plan handlers; need {@link Planner}. */
export const PlanHttp = group(apiOf(PlanApi), "plan", (handlers) => Effect.gen(function*() {
  const planner = yield* Planner
  return handlers.handleAll({ plan: ({ payload }) => planner.plan(payload) })
}))
