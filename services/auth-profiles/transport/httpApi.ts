/**
 * Auth profiles and session pins over HTTP (gateway-api.md "Auth profiles and
 * session pins"; docs/auth-profiles.md): device tokens need operator.admin.
 * Records carry secret handles, never secret values. With
 * `SVC_AUTH_PROFILES=off` every route answers 404 `not_found`.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import {
  AuthProfileCreateRequest,
  AuthProfileCreateResponse,
  AuthProfileDisableRequest,
  AuthProfileEnableRequest,
  AuthProfileId,
  AuthProfileListQuery,
  AuthProfileListResponse,
  AuthProfileResponse,
  AuthProfileUpdateRequest,
  SessionProviderPinClearResponse,
  SessionProviderPinListQuery,
  SessionProviderPinListResponse,
  SessionProviderPinSetRequest,
  SessionProviderPinSetResponse
} from "../schema.ts"
import { NotFound } from "../../shared/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

const params = { id: AuthProfileId }
const errors = [...REQUEST_ERRORS, wire(NotFound)]

/** `/auth/profiles*` and `/auth/pins`. */
export const AuthProfilesApi = HttpApiGroup.make("authProfiles")
  .add(
    HttpApiEndpoint.get("list", "/auth/profiles", {
      query: AuthProfileListQuery,
      success: AuthProfileListResponse,
      error: errors
    }).annotateMerge(documented(
      "The agent's auth profiles (credentials for a provider, by secret handle), filtered by `provider` and `status`.",
      {
        setup: [
          "HANDLE=$(curl -s \"$GW/secrets\" -H \"authorization: Bearer $TOKEN\" -d '{\"scope\":\"provider:openai\",\"value\":\"sk-example\"}' | jq -r .handle.handle_id)",
          "curl -s \"$GW/auth/profiles\" -H \"authorization: Bearer $TOKEN\" -d '{\"provider\":\"openai\",\"type\":\"api_key\",\"secret_handles\":{\"api_key\":\"'\"$HANDLE\"'\"}}' > /dev/null"
        ].join("\n"),
        query: "provider=openai",
        response: { profiles: [{ agent_id: "default", provider: "openai", type: "api_key", status: "active" }] }
      }
    )),
    HttpApiEndpoint.post("create", "/auth/profiles", {
      payload: AuthProfileCreateRequest,
      success: AuthProfileCreateResponse.pipe(HttpApiSchema.status(201)),
      error: errors
    }).annotateMerge(documented(
      "Creates an auth profile: `provider`, `type` (`api_key`, `oauth`, `token`) and the secret handles it uses " +
        "(they must exist; the profile never holds a value), optional `labels`.",
      {
        setup: "HANDLE=$(curl -s \"$GW/secrets\" -H \"authorization: Bearer $TOKEN\" -d '{\"scope\":\"provider:anthropic\",\"value\":\"sk-ant-example\"}' | jq -r .handle.handle_id)",
        body: "{\"provider\":\"anthropic\",\"type\":\"api_key\",\"secret_handles\":{\"api_key\":\"$HANDLE\"},\"labels\":{\"team\":\"ops\"}}",
        response: { profile: { auth_profile_id: "…", agent_id: "default", provider: "anthropic", type: "api_key", status: "active", labels: { team: "ops" } } }
      }
    )),
    HttpApiEndpoint.patch("update", "/auth/profiles/:id", {
      params,
      payload: AuthProfileUpdateRequest,
      success: AuthProfileResponse,
      error: errors
    }).annotateMerge(documented(
      "Changes a profile's `type`, `secret_handles` or `labels` (the fields given).",
      {
        setup: "PROFILE_ID=$(curl -s \"$GW/auth/profiles?provider=anthropic\" -H \"authorization: Bearer $TOKEN\" | jq -r '.profiles[0].auth_profile_id')",
        path: "/auth/profiles/$PROFILE_ID",
        body: { labels: { team: "platform" } },
        response: { status: "ok", profile: { provider: "anthropic", labels: { team: "platform" } } }
      }
    )),
    HttpApiEndpoint.post("disable", "/auth/profiles/:id/disable", {
      params,
      payload: AuthProfileDisableRequest,
      success: AuthProfileResponse,
      error: errors
    }).annotateMerge(documented(
      "Disables a profile (with an optional `reason`): it is no longer selected for the provider.",
      {
        path: "/auth/profiles/$PROFILE_ID/disable",
        body: { reason: "key leaked" },
        response: { status: "ok", profile: { status: "disabled", disabled_reason: "key leaked" } }
      }
    )),
    HttpApiEndpoint.post("enable", "/auth/profiles/:id/enable", {
      params,
      payload: AuthProfileEnableRequest,
      success: AuthProfileResponse,
      error: errors
    }).annotateMerge(documented(
      "Enables a disabled profile again (the body may be `{}`).",
      { path: "/auth/profiles/$PROFILE_ID/enable", body: {}, response: { status: "ok", profile: { status: "active" } } }
    )),
    HttpApiEndpoint.get("listPins", "/auth/pins", {
      query: SessionProviderPinListQuery,
      success: SessionProviderPinListResponse,
      error: errors
    }).annotateMerge(documented(
      "Session pins: which profile a session uses for a provider, filtered by `agent_id`, `session_id`, `provider`.",
      { query: "provider=anthropic", response: { pins: [] } }
    )),
    HttpApiEndpoint.post("setPin", "/auth/pins", {
      payload: SessionProviderPinSetRequest,
      success: [SessionProviderPinSetResponse.pipe(HttpApiSchema.status(201)), SessionProviderPinClearResponse],
      error: errors
    }).annotateMerge(documented(
      "Pins a session to a profile of a provider (201 `{pin}`), or clears the pin with `profile_id: null` " +
        "(200 `{cleared}`). The profile must be the agent's, active and for that provider.",
      {
        body: "{\"session_id\":\"thread-42\",\"provider\":\"anthropic\",\"profile_id\":\"$PROFILE_ID\"}",
        response: { status: "ok", pin: { agent_id: "default", session_id: "thread-42", provider: "anthropic" } }
      }
    ))
  )
  .annotate(Access, scope("operator.admin"))
  .middleware(Authentication)
  .middleware(RequestErrors)
