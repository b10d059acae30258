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
} from "../schema.ts"
import { NotFound } from "../../shared/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { AUTH_ERRORS, REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

/** Policy bundle and overrides. */
export const PolicyBundleApi = HttpApiGroup.make("policyBundle")
  .add(
    HttpApiEndpoint.get("bundle", "/policy/bundle", { success: PolicyBundleResponse, error: AUTH_ERRORS }).annotateMerge(documented(
      "The policy bundle in force: the deployment bundle (`SVC_POLICY_BUNDLE_PATH`, else the built-in one) merged with " +
        "the agent bundle in `$SVC_HOME/policy.yml` (most restrictive wins), its sha256 over canonical JSON and the " +
        "source paths (docs/policy-bundle.md).",
      { response: { status: "ok", effective: { sha256: "…", sources: { deployment: "default", agent: "…/.svc/policy.yml" } } } }
    )),
    HttpApiEndpoint.post("createOverride", "/policy/overrides", {
      payload: PolicyOverrideCreateRequest,
      success: PolicyOverrideCreateResponse.pipe(HttpApiSchema.status(201)),
      error: REQUEST_ERRORS
    }).annotateMerge(documented(
      "Creates an \"approve always\" override: tool calls of `agent_id` with `tool_id` whose match target matches " +
        "`pattern` (a glob) pass the tool rule from now on, until revoked or `expires_at`. It never relaxes a deny of " +
        "another rule. Announced as `policy_override.created`.",
      {
        body: { agent_id: "default", tool_id: "tool.exec", pattern: "git status*" },
        response: { override: { policy_override_id: "…", agent_id: "default", tool_id: "tool.exec", pattern: "git status*", status: "active" } }
      }
    )),
    HttpApiEndpoint.get("listOverrides", "/policy/overrides", {
      query: PolicyOverrideListRequest,
      success: PolicyOverrideListResponse,
      error: REQUEST_ERRORS
    }).annotateMerge(documented(
      "Lists overrides, newest first, filtered by `agent_id`, `tool_id` and `status` (`active`, `revoked`, " +
        "`expired`); pages of `limit` (1..500, default 100) with `next_cursor` while more remain.",
      { query: "agent_id=default&status=active", response: { overrides: [{ agent_id: "default", tool_id: "tool.exec", status: "active" }] } }
    )),
    HttpApiEndpoint.post("revokeOverride", "/policy/overrides/revoke", {
      payload: PolicyOverrideRevokeRequest,
      success: PolicyOverrideRevokeResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }).annotateMerge(documented(
      "Revokes an active override (final); 404 when it is unknown or no longer active. Announced as " +
        "`policy_override.revoked`.",
      {
        setup: "OVERRIDE_ID=$(curl -s \"$GW/policy/overrides?status=active\" -H \"authorization: Bearer $TOKEN\" | jq -r '.overrides[0].policy_override_id')",
        body: "{\"policy_override_id\":\"$OVERRIDE_ID\",\"reason\":\"no longer needed\"}",
        response: { override: { status: "revoked", revoked_reason: "no longer needed" } }
      }
    ))
  )
  .annotate(Access, scope("operator.admin"))
  .middleware(Authentication)
  .middleware(RequestErrors)
