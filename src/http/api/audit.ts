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
} from "../../../services/audit/schema.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { Access, scope } from "./access.ts"
import { REQUEST_ERRORS, wire } from "./errors.ts"

/** `GET /audit/export/:planId`, `POST /audit/verify`, `POST /audit/forget`. */
export const AuditApi = HttpApiGroup.make("audit")
  .add(
    HttpApiEndpoint.get("export", "/audit/export/:planId", {
      params: { planId: Schema.String },
      success: AuditReceiptBundle,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }),
    HttpApiEndpoint.post("verify", "/audit/verify", { payload: AuditVerifyRequest, success: AuditVerifyResult, error: REQUEST_ERRORS }),
    HttpApiEndpoint.post("forget", "/audit/forget", { payload: AuditForgetRequest, success: AuditForgetResponse, error: REQUEST_ERRORS })
  )
  .annotate(Access, scope("operator.admin"))
