/** `POST /policy/check` (src/http/api/policy.ts): the decoded request to `PolicyService.check`. */
import { Effect } from "effect"
import { PolicyService } from "../../services/policy/PolicyService.ts"
import { GatewayApi } from "./api/index.ts"
import { handlers } from "./router.ts"

/** Policy handlers; need {@link PolicyService}. */
export const PolicyHttp = handlers(GatewayApi, "policy", Effect.gen(function*() {
  const policy = yield* PolicyService
  return { check: ({ payload }) => policy.check(payload) }
}))
