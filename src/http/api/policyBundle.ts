/**
 * The policy bundle and its overrides (gateway-api.md "Policy"; reference
 * §1.3, §1.4; docs/policy-bundle.md): device tokens need operator.admin.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import {
  PolicyBundleResponse,
  PolicyOverrideCreateRequest,
  PolicyOverrideCreateResponse,
  PolicyOverrideListRequest,
  PolicyOverrideListResponse,
  PolicyOverrideRevokeRequest,
  PolicyOverrideRevokeResponse
} from "../../../services/policy-bundle/schema.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { Access, scope } from "./access.ts"
import { AUTH_ERRORS, REQUEST_ERRORS, wire } from "./errors.ts"

/** Policy bundle and overrides. */
export const PolicyBundleApi = HttpApiGroup.make("policyBundle")
  .add(
    HttpApiEndpoint.get("bundle", "/policy/bundle", { success: PolicyBundleResponse, error: AUTH_ERRORS }),
    HttpApiEndpoint.get("listOverrides", "/policy/overrides", {
      query: PolicyOverrideListRequest,
      success: PolicyOverrideListResponse,
      error: REQUEST_ERRORS
    }),
    HttpApiEndpoint.post("createOverride", "/policy/overrides", {
      payload: PolicyOverrideCreateRequest,
      success: PolicyOverrideCreateResponse.pipe(HttpApiSchema.status(201)),
      error: REQUEST_ERRORS
    }),
    HttpApiEndpoint.post("revokeOverride", "/policy/overrides/revoke", {
      payload: PolicyOverrideRevokeRequest,
      success: PolicyOverrideRevokeResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    })
  )
  .annotate(Access, scope("operator.admin"))
