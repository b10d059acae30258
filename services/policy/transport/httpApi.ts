/** `POST /policy/check` (policy-check.md "Endpoints"): device tokens need operator.admin. */
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { PolicyCheckRequest, PolicyDecision } from "../schema.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS } from "../../../src/http/api/errors.ts"

/** Policy evaluation. */
export const PolicyApi = HttpApiGroup.make("policy")
  .add(HttpApiEndpoint.post("check", "/policy/check", {
    payload: PolicyCheckRequest,
    success: PolicyDecision,
    error: REQUEST_ERRORS
  }).annotateMerge(documented(
    "Evaluates a proposed action against the four fixed guardrails, outside any model: spend (auto-approved up to " +
      "EUR 100.00 or its equivalent), personal data, legal flags and connector scope. `decision` is the most " +
      "restrictive rule outcome (`allow`, `require_approval`, `deny`); `rules` has one entry per rule, in that order. " +
      "Every section of the request is optional; a missing one is evaluated as absent.",
    {
      body: {
        spend: { amount_minor_units: 8750, currency: "EUR" },
        pii: { categories: ["basic_contact"] },
        legal: { flags: [] },
        connector: { scope: "mcp://calendar" }
      },
      response: {
        decision: "allow",
        rules: [{ rule: "spend_limit", outcome: "allow", detail: "Amount EUR 87.50 within auto-approval limit EUR 100.00." }]
      }
    }
  )))
  .annotate(Access, scope("operator.admin"))
  .middleware(Authentication)
  .middleware(RequestErrors)
