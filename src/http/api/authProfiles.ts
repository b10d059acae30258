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
} from "../../../services/auth-profiles/schema.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { Access, scope } from "./access.ts"
import { REQUEST_ERRORS, wire } from "./errors.ts"

const params = { id: AuthProfileId }
const errors = [...REQUEST_ERRORS, wire(NotFound)]

/** `/auth/profiles*` and `/auth/pins`. */
export const AuthProfilesApi = HttpApiGroup.make("authProfiles")
  .add(
    HttpApiEndpoint.get("list", "/auth/profiles", {
      query: AuthProfileListQuery,
      success: AuthProfileListResponse,
      error: errors
    }),
    HttpApiEndpoint.post("create", "/auth/profiles", {
      payload: AuthProfileCreateRequest,
      success: AuthProfileCreateResponse.pipe(HttpApiSchema.status(201)),
      error: errors
    }),
    HttpApiEndpoint.patch("update", "/auth/profiles/:id", {
      params,
      payload: AuthProfileUpdateRequest,
      success: AuthProfileResponse,
      error: errors
    }),
    HttpApiEndpoint.post("disable", "/auth/profiles/:id/disable", {
      params,
      payload: AuthProfileDisableRequest,
      success: AuthProfileResponse,
      error: errors
    }),
    HttpApiEndpoint.post("enable", "/auth/profiles/:id/enable", {
      params,
      payload: AuthProfileEnableRequest,
      success: AuthProfileResponse,
      error: errors
    }),
    HttpApiEndpoint.get("listPins", "/auth/pins", {
      query: SessionProviderPinListQuery,
      success: SessionProviderPinListResponse,
      error: errors
    }),
    HttpApiEndpoint.post("setPin", "/auth/pins", {
      payload: SessionProviderPinSetRequest,
      success: [SessionProviderPinSetResponse.pipe(HttpApiSchema.status(201)), SessionProviderPinClearResponse],
      error: errors
    })
  )
  .annotate(Access, scope("operator.admin"))
