/**
 * `POST /plan` (gateway-api.md "Plan runner"): device tokens need
 * operator.write. A malformed tag is 400 `invalid_request` naming it; a
 * request_id already used for another body is 409 `conflict`. docs/planner.md.
 */
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { PlanConflict, PlanRequest, PlanResponse } from "../schema.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

/** The plan runner. */
export const PlanApi = HttpApiGroup.make("plan")
  .add(HttpApiEndpoint.post("plan", "/plan", {
    payload: PlanRequest,
    success: PlanResponse,
    error: [...REQUEST_ERRORS, wire(PlanConflict)]
  }).annotateMerge(documented(
    "Plans a request: the tags (`spend:<minor units>:<currency>`, `pii:<category>|none`, `legal:<flag>|none`, " +
      "`connector:<scope>`) become guardrail checks and steps (docs/planner.md). A spend over the limit escalates: " +
      "the answer names the step and a new pending approval. `request_id` makes it idempotent (the same body answers " +
      "the same plan; another body with it is 409 `conflict`); `execute: true` also runs the plan's steps.",
    {
      body: {
        request_id: "r-1",
        trigger: { channel: "web", thread_id: "t-1", message: { text: "Buy the ticket" } },
        tags: ["spend:25000:USD", "pii:none", "legal:none"]
      },
      response: { plan_id: "plan-…", status: "escalate", escalation: { step_index: 2, approval_id: 1 } }
    }
  )))
  .annotate(Access, scope("operator.write"))
  .middleware(Authentication)
  .middleware(RequestErrors)
