/**
 * Cookie session and device tokens (gateway-api.md "Public routes",
 * "Device tokens"; reference §2.2, §2.6). These routes exist only when
 * gateway auth is enabled.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import {
  AuthSessionInfo,
  AuthSessionRequest,
  DeviceTokenIssueRequest,
  DeviceTokenIssueResponse,
  DeviceTokenRevokeRequest,
  DeviceTokenRevokeResponse
} from "../schema.ts"
import { InvalidRequest, NotFound, TooManyRequests, Unauthorized } from "../../shared/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, ADMIN_TOKEN, AUTHENTICATED, PUBLIC } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { AUTH_ERRORS, REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"
import { KNOWN_SCOPES } from "../schema.ts"

/** Authentication routes. */
export const AuthApi = HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("session", "/auth/session", {
      payload: AuthSessionRequest,
      success: HttpApiSchema.NoContent,
      error: [wire(InvalidRequest), wire(Unauthorized), wire(TooManyRequests)]
    }).annotate(Access, PUBLIC).annotateMerge(documented(
      "Browser session: checks `token` (the admin token or a device token) and answers 204 with the HttpOnly, " +
        "SameSite=Strict cookie `svc_admin_token` (Secure over https). Cookie requests that change state must come " +
        "from the gateway's own origin. A wrong token counts against the address's failed-authentication limit (429).",
      { body: "{\"token\":\"$TOKEN\"}" }
    )),
    HttpApiEndpoint.get("sessionInfo", "/auth/session", {
      success: AuthSessionInfo,
      error: AUTH_ERRORS
    }).middleware(Authentication).annotate(Access, AUTHENTICATED).annotateMerge(documented(
      "Who the presented token is (the bearer header, else the `svc_admin_token` cookie), for a client that must " +
        "hide what it cannot do: `token_kind`, `scopes` and, for a device token, `token_id`, `device_id`, `role` and " +
        "`expires_at` (null when persistent). The admin token passes every check, so its `scopes` are every known " +
        "scope, and it alone may use the admin-token routes (`/auth/device-tokens/*`). Any valid token may ask; " +
        "the token itself is never answered. 401 without a valid token.",
      { response: { status: "ok", token_kind: "admin", scopes: [...KNOWN_SCOPES] } }
    )),
    HttpApiEndpoint.post("logout", "/auth/logout", { success: HttpApiSchema.NoContent }).annotate(Access, PUBLIC).annotateMerge(documented(
      "Clears the `svc_admin_token` cookie (204). Public: it needs no token and changes nothing else.",
      {}
    )),
    HttpApiEndpoint.post("issueDeviceToken", "/auth/device-tokens/issue", {
      payload: DeviceTokenIssueRequest,
      success: DeviceTokenIssueResponse.pipe(HttpApiSchema.status(201)),
      error: REQUEST_ERRORS
    }).middleware(Authentication).annotateMerge(documented(
      "Issues a scoped device token (`svc-device.v1.…`) for `device_id` and `role` with `scopes` (at most 32). It " +
        "expires after `ttl_seconds` (default 900, at most 30 days) unless `persistent: true`. Only the token's " +
        "digest is stored: the token is in this answer and nowhere else.",
      {
        body: { device_id: "ops-laptop", role: "client", scopes: ["operator.read", "operator.approvals"], ttl_seconds: 3600 },
        response: { token_kind: "device", token: "svc-device.v1.…", token_id: "…", device_id: "ops-laptop", role: "client", scopes: ["operator.read", "operator.approvals"] }
      }
    )),
    HttpApiEndpoint.post("revokeDeviceToken", "/auth/device-tokens/revoke", {
      payload: DeviceTokenRevokeRequest,
      success: DeviceTokenRevokeResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }).middleware(Authentication).annotateMerge(documented(
      "Revokes a device token (given as the token itself); it is refused from then on, also on open WebSocket " +
        "connections. 404 for a token the gateway never issued.",
      {
        setup: "DEVICE_TOKEN=$(curl -s \"$GW/auth/device-tokens/issue\" -H \"authorization: Bearer $TOKEN\" -d '{\"device_id\":\"ci-bot\",\"role\":\"client\",\"scopes\":[]}' | jq -r .token)",
        body: "{\"token\":\"$DEVICE_TOKEN\"}",
        response: { revoked: true, token_id: "…" }
      }
    ))
  )
  .annotate(Access, ADMIN_TOKEN)
  .middleware(RequestErrors)
