/** `POST /policy/check` (src/http/api/policy.ts): the decoded request to `PolicyService.check`. */
import { Effect } from "effect"
import { PolicyService } from "../../services/policy/PolicyService.ts"
import { GatewayApi } from "./api/index.ts"
import { group } from "./serve.ts"

/** Policy handlers; need {@link PolicyService}. */
export const PolicyHttp = group(GatewayApi, "policy", (handlers) => Effect.gen(function*() {
  const policy = yield* PolicyService
  return handlers.handleAll({ check: ({ payload }) => policy.check(payload) })
}))
