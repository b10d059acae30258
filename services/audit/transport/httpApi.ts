/**
 * The audit chain over HTTP (gateway-api.md "Audit"; docs/audit.md): export
 * a chain with its verification, verify a chain someone holds, and forget
 * a chain's content with a proof. Device tokens need operator.admin.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import {
  AuditForgetRequest,
  AuditForgetResponse,
  AuditReceiptBundle,
  AuditVerifyRequest,
  AuditVerifyResult
} from "../schema.ts"
import { NotFound } from "../../shared/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

/** `GET /audit/export/:planId`, `POST /audit/verify`, `POST /audit/forget`. */
export const AuditApi = HttpApiGroup.make("audit")
  .add(
    HttpApiEndpoint.get("export", "/audit/export/:planId", {
      params: { planId: Schema.String },
      success: AuditReceiptBundle,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }).annotateMerge(documented(
      "Exports a hash chain with its verification: a plan's chain (its policy check, approvals and runs) by plan id, " +
        "or a gateway-wide one (`gateway.auth`, `gateway.pairing`, `gateway.device_tokens`, `gateway.secrets`, " +
        "`gateway.policy_overrides`, `gateway.routing`, `gateway.canvas`, `gateway.memory`, `gateway.work`, " +
        "`gateway.artifacts`). 404 for a chain without events. docs/audit.md.",
      {
        setup: "PLAN_ID=$(curl -s \"$GW/approvals/1\" -H \"authorization: Bearer $TOKEN\" | jq -r .approval.plan_id)",
        path: "/audit/export/$PLAN_ID",
        response: { plan_id: "plan-…", chain_verification: { valid: true, broken_at_index: null, broken_at_id: null } }
      }
    )),
    HttpApiEndpoint.post("verify", "/audit/verify", { payload: AuditVerifyRequest, success: AuditVerifyResult, error: REQUEST_ERRORS })
      .annotateMerge(documented(
        "Verifies a chain someone holds (e.g. an earlier export's `events`): recomputes every hash and link and names " +
          "the first broken event. Nothing is read from the database.",
        {
          shell: "curl -s \"$GW/audit/export/$PLAN_ID\" -H \"authorization: Bearer $TOKEN\" | jq '{events}' |\n" +
            "  curl -s \"$GW/audit/verify\" -H \"authorization: Bearer $TOKEN\" -H 'content-type: application/json' --data-binary @-",
          response: { valid: true, broken_at_index: null, broken_at_id: null }
        }
      )),
    HttpApiEndpoint.post("forget", "/audit/forget", { payload: AuditForgetRequest, success: AuditForgetResponse, error: REQUEST_ERRORS })
      .annotateMerge(documented(
        "Erases an entity's personal content from its chain, keeping the proof: `delete` removes the events, " +
          "`anonymize` nulls their actions (the digests stay, so the chain still verifies), `retain` records the " +
          "decision only. Each appends a `forget.proof` event. `confirm` must be `FORGET`.",
        {
          body: "{\"confirm\":\"FORGET\",\"entity_type\":\"plan\",\"entity_id\":\"$PLAN_ID\",\"decision\":\"retain\"}",
          response: { decision: "retain", deleted_count: 0 }
        }
      ))
  )
  .annotate(Access, scope("operator.admin"))
  .middleware(Authentication)
  .middleware(RequestErrors)
