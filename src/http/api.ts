/**
 * The HttpApi definition of the implemented routes: the single source of the
 * OpenAPI document served at `GET /openapi.json`. Request and response shapes
 * are the same Schemas the handlers decode with (`src/contracts/`); a test
 * checks every endpoint here is served and declared in the route table.
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  AuthSessionRequest,
  DeviceTokenIssueRequest,
  DeviceTokenIssueResponse,
  DeviceTokenRevokeRequest,
  DeviceTokenRevokeResponse
} from "../contracts/auth.ts"
import { PolicyCheckRequest, PolicyDecision } from "../contracts/policy.ts"

/** `{error, message}` with the given status, as every error response is shaped. */
const ErrorBody = (status: number, identifier: string, description: string) =>
  Schema.Struct({
    error: Schema.String.annotate({ description: "Stable error code, e.g. invalid_request." }),
    message: Schema.String.annotate({ description: "Human-readable explanation." })
  }).annotate({ httpApiStatus: status, identifier, description })

const InvalidRequestBody = ErrorBody(400, "InvalidRequest", "invalid_request: the message names the offending field")
const UnauthorizedBody = ErrorBody(401, "Unauthorized", "unauthorized: missing or invalid token")
const ForbiddenBody = ErrorBody(403, "Forbidden", "forbidden: insufficient scope or admin token required")
const NotFoundBody = ErrorBody(404, "NotFound", "not_found")
const TooLargeBody = ErrorBody(413, "PayloadTooLarge", "payload_too_large: body above the configured limit")
const RateLimitedBody = ErrorBody(429, "TooManyRequests", "too_many_requests: see Retry-After")

const authErrors = [UnauthorizedBody, ForbiddenBody] as const

/** Public health probe. */
export class HealthGroup extends HttpApiGroup.make("health").add(
  HttpApiEndpoint.get("healthz", "/healthz", {
    success: Schema.Struct({ status: Schema.Literal("ok"), is_exposed: Schema.Boolean })
  })
) {}

/** Policy evaluation (policy-check.md). Device tokens need operator.admin. */
export class PolicyGroup extends HttpApiGroup.make("policy").add(
  HttpApiEndpoint.post("check", "/policy/check", {
    payload: PolicyCheckRequest,
    success: PolicyDecision,
    error: [InvalidRequestBody, TooLargeBody, ...authErrors]
  })
) {}

/** Cookie session and device tokens (gateway-api.md "Authentication"). */
export class AuthGroup extends HttpApiGroup.make("auth").add(
  HttpApiEndpoint.post("session", "/auth/session", {
    payload: AuthSessionRequest,
    success: HttpApiSchema.NoContent,
    error: [InvalidRequestBody, UnauthorizedBody, RateLimitedBody]
  }),
  HttpApiEndpoint.post("logout", "/auth/logout", { success: HttpApiSchema.NoContent }),
  HttpApiEndpoint.post("issueDeviceToken", "/auth/device-tokens/issue", {
    payload: DeviceTokenIssueRequest,
    success: DeviceTokenIssueResponse.annotate({ httpApiStatus: 201 }),
    error: [InvalidRequestBody, RateLimitedBody, ...authErrors]
  }),
  HttpApiEndpoint.post("revokeDeviceToken", "/auth/device-tokens/revoke", {
    payload: DeviceTokenRevokeRequest,
    success: DeviceTokenRevokeResponse,
    error: [InvalidRequestBody, NotFoundBody, RateLimitedBody, ...authErrors]
  })
) {}

/** WebSocket diagnostics (gateway-api.md "Runtime and diagnostics"; docs/websocket.md). Device tokens need operator.read. */
export class DiagnosticsGroup extends HttpApiGroup.make("diagnostics").add(
  HttpApiEndpoint.get("connections", "/connections", {
    success: Schema.Struct({
      status: Schema.Literal("ok"),
      total: Schema.Int,
      by_role: Schema.Struct({ client: Schema.Int, node: Schema.Int }),
      totalClients: Schema.Int,
      capabilityCounts: Schema.Record(Schema.String, Schema.Int),
      connections: Schema.Array(Schema.Record(Schema.String, Schema.Unknown))
    }),
    error: [...authErrors]
  }),
  HttpApiEndpoint.get("presence", "/presence", {
    success: Schema.Struct({
      status: Schema.Literal("ok"),
      generated_at: Schema.String,
      entries: Schema.Array(Schema.Record(Schema.String, Schema.Unknown))
    }),
    error: [...authErrors]
  })
) {}

/** The gateway's HTTP API as implemented so far. */
export class GatewayApi extends HttpApi.make("svc-gateway")
  .add(HealthGroup)
  .add(PolicyGroup)
  .add(AuthGroup)
  .add(DiagnosticsGroup)
  .annotateMerge(OpenApi.annotations({
    title: "svc-gateway",
    description:
      "Operator gateway. Authenticate with `Authorization: Bearer <token>` or the `svc_admin_token` cookie; " +
      "device tokens need the scope listed per route in docs/ and gateway-api.md."
  }))
{}

/** The OpenAPI 3 document of {@link GatewayApi}, generated once. */
export const openApiDocument = (): OpenApi.OpenAPISpec => OpenApi.fromApi(GatewayApi)
