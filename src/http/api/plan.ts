/**
 * `POST /plan` (gateway-api.md "Plan runner"): device tokens need
 * operator.write. A malformed tag is 400 `invalid_request` naming it; a
 * request_id already used for another body is 409 `conflict`. docs/planner.md.
 */
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { PlanConflict, PlanRequest, PlanResponse } from "../../../services/planner/schema.ts"
import { Access, scope } from "./access.ts"
import { REQUEST_ERRORS, wire } from "./errors.ts"

/** The plan runner. */
export const PlanApi = HttpApiGroup.make("plan")
  .add(HttpApiEndpoint.post("plan", "/plan", {
    payload: PlanRequest,
    success: PlanResponse,
    error: [...REQUEST_ERRORS, wire(PlanConflict)]
  }))
  .annotate(Access, scope("operator.write"))
