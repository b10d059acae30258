/** `POST /policy/check` (src/http/api/policy.ts): the decoded request to `PolicyService.check`. */
import { PolicyApi } from "./httpApi.ts"
import { Effect } from "effect"
import { PolicyService } from "../PolicyService.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

/** Policy handlers; need {@link PolicyService}. */
export const PolicyHttp = group(apiOf(PolicyApi), "policy", (handlers) => Effect.gen(function*() {
  const policy = yield* PolicyService
  return handlers.handleAll({ check: ({ payload }) => policy.check(payload) })
}))
