/** `POST /policy/check` (policy-check.md "Endpoints"): device tokens need operator.admin. */
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { PolicyCheckRequest, PolicyDecision } from "../../../services/policy/schema.ts"
import { Access, scope } from "./access.ts"
import { REQUEST_ERRORS } from "./errors.ts"

/** Policy evaluation. */
export const PolicyApi = HttpApiGroup.make("policy")
  .add(HttpApiEndpoint.post("check", "/policy/check", {
    payload: PolicyCheckRequest,
    success: PolicyDecision,
    error: REQUEST_ERRORS
  }))
  .annotate(Access, scope("operator.admin"))
