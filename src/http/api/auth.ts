/**
 * Cookie session and device tokens (gateway-api.md "Public routes",
 * "Device tokens"; reference §2.2, §2.6). These routes exist only when
 * gateway auth is enabled.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import {
  AuthSessionRequest,
  DeviceTokenIssueRequest,
  DeviceTokenIssueResponse,
  DeviceTokenRevokeRequest,
  DeviceTokenRevokeResponse
} from "../../../services/auth/schema.ts"
import { InvalidRequest, NotFound, TooManyRequests, Unauthorized } from "../../../services/shared/errors.ts"
import { Access, ADMIN_TOKEN, PUBLIC } from "./access.ts"
import { REQUEST_ERRORS, wire } from "./errors.ts"

/** Authentication routes. */
export const AuthApi = HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("session", "/auth/session", {
      payload: AuthSessionRequest,
      success: HttpApiSchema.NoContent,
      error: [wire(InvalidRequest), wire(Unauthorized), wire(TooManyRequests)]
    }).annotate(Access, PUBLIC),
    HttpApiEndpoint.post("logout", "/auth/logout", { success: HttpApiSchema.NoContent }).annotate(Access, PUBLIC),
    HttpApiEndpoint.post("issueDeviceToken", "/auth/device-tokens/issue", {
      payload: DeviceTokenIssueRequest,
      success: DeviceTokenIssueResponse.pipe(HttpApiSchema.status(201)),
      error: REQUEST_ERRORS
    }),
    HttpApiEndpoint.post("revokeDeviceToken", "/auth/device-tokens/revoke", {
      payload: DeviceTokenRevokeRequest,
      success: DeviceTokenRevokeResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    })
  )
  .annotate(Access, ADMIN_TOKEN)
