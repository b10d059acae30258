/**
 * Wire schemas of the authentication routes (gateway-api.md "Authentication",
 * "Device tokens"; reference §2.2, §2.6). One source for validation, the
 * OpenAPI document and the client.
 */
import { Schema } from "effect"
import { DEVICE_ROLES } from "../shared/principal.ts"

/** Name of the session cookie holding the admin (or a device) token (gateway-api.md "Authentication"). */
export const ADMIN_COOKIE = "svc_admin_token"

/** Longest device-token lifetime: 30 days, in seconds (reference §2.2). */
export const MAX_DEVICE_TOKEN_TTL_SECONDS = 2_592_000

/** Lifetime of a device token issued without `ttl_seconds` or `persistent`: 15 minutes, in seconds. */
export const DEFAULT_DEVICE_TOKEN_TTL_SECONDS = 900

/** Longest `device_id` a device token may be issued for, in characters. */
export const MAX_DEVICE_ID_LENGTH = 128

/** Characters a `device_id` may use: ASCII letters, digits and `. _ : @ -` (the handshake's `dev_<base32>` ids fit). */
export const DEVICE_ID_PATTERN = /^[A-Za-z0-9._:@-]+$/

/** Most entries a device token's `scopes` list may have (duplicates included). */
export const MAX_SCOPES = 32

/**
 * Device-token scopes named by the spec (gateway-api.md "Authentication":
 * "Device token scopes"). The only scopes a token may be issued with; there
 * is no wildcard.
 */
export const KNOWN_SCOPES = [
  "operator.read",
  "operator.write",
  "operator.admin",
  "operator.approvals",
  "operator.pairing"
] as const

/** One of {@link KNOWN_SCOPES}, exactly (case-sensitive, no surrounding spaces). */
export const Scope = Schema.Literals(KNOWN_SCOPES).annotate({
  expected: `one of ${KNOWN_SCOPES.join(", ")}`,
  description: "A device-token scope: operator.read, operator.write, operator.admin, operator.approvals or operator.pairing."
})
export type Scope = typeof Scope.Type

/** `client` (operator programs) or `node` (capability providers). */
export const DeviceRole = Schema.Literals(DEVICE_ROLES).annotate({
  description: "Device role: client (operator program) or node (capability provider)."
})
export type DeviceRole = typeof DeviceRole.Type

/** `POST /auth/session` body. */
export const AuthSessionRequest = Schema.Struct({
  token: Schema.String.annotate({ description: "The admin token or a device token to store in the svc_admin_token cookie." })
}).annotate({ identifier: "AuthSessionRequest" })
export type AuthSessionRequest = typeof AuthSessionRequest.Type

/**
 * `GET /auth/session` 200 body: who the presented token (bearer or the
 * `svc_admin_token` cookie) is, never the token itself. The admin token
 * passes every check, so its `scopes` are every known scope (there is no
 * wildcard), and it alone may use the admin-token routes (`token_kind:
 * "admin"`); a device token's `scopes` are the ones it was issued with.
 */
export const AuthSessionInfo = Schema.Struct({
  status: Schema.Literal("ok"),
  token_kind: Schema.Literals(["admin", "device"]).annotate({
    description: "admin: the break-glass admin token (every scope and the admin-token routes); device: a device token."
  }),
  scopes: Schema.Array(Scope).annotate({
    description: "What the token may do: every known scope for the admin token, the issued scopes for a device token."
  }),
  token_id: Schema.optionalKey(Schema.String.annotate({ description: "A device token's id (as audit records show it)." })),
  device_id: Schema.optionalKey(Schema.String.annotate({ description: "The device a device token is bound to." })),
  role: Schema.optionalKey(DeviceRole),
  expires_at: Schema.optionalKey(Schema.NullOr(Schema.String).annotate({
    description: "A device token's expiry, ISO-8601 UTC; null when persistent. Absent for the admin token."
  }))
}).annotate({ identifier: "AuthSessionInfo" })
export type AuthSessionInfo = typeof AuthSessionInfo.Type

/**
 * `POST /auth/device-tokens/issue` body. `persistent: true` issues a token
 * without expiry and cannot be combined with `ttl_seconds` (1..2592000 s,
 * default 900 s).
 */
export const DeviceTokenIssueRequest = Schema.Struct({
  device_id: Schema.Trim.check(
    Schema.isNonEmpty(),
    Schema.isMaxLength(MAX_DEVICE_ID_LENGTH, { expected: `at most ${MAX_DEVICE_ID_LENGTH} characters` }),
    Schema.isPattern(DEVICE_ID_PATTERN, { expected: "only letters, digits and . _ : @ -" })
  ).annotate({
    description: `Device the token is bound to: 1..${MAX_DEVICE_ID_LENGTH} characters of A-Z a-z 0-9 . _ : @ - (trimmed).`
  }),
  role: DeviceRole,
  scopes: Schema.Array(Scope).check(Schema.isMaxLength(MAX_SCOPES, { expected: `at most ${MAX_SCOPES} scopes` })).annotate({
    description: `Operator scopes (at most ${MAX_SCOPES} entries; duplicates collapse), each exactly one of ` +
      "operator.read, operator.write, operator.admin, operator.approvals, operator.pairing (gateway-api.md \"Authentication\"). " +
      "Anything else, including *, is a 400 naming the entry."
  }),
  persistent: Schema.optionalKey(Schema.Boolean.annotate({ description: "Issue a token that never expires." })),
  ttl_seconds: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_DEVICE_TOKEN_TTL_SECONDS })).annotate({
      description: "Lifetime in seconds (1..2592000); default 900."
    })
  )
}).check(
  Schema.makeFilter(
    (req) =>
      req.persistent === true && req.ttl_seconds !== undefined
        ? { path: ["ttl_seconds"], issue: "cannot be combined with persistent: true" }
        : undefined,
    { expected: "ttl_seconds not combined with persistent: true" }
  )
).annotate({ identifier: "DeviceTokenIssueRequest" })
export type DeviceTokenIssueRequest = typeof DeviceTokenIssueRequest.Type

/** `POST /auth/device-tokens/issue` 201 body. `expires_at` is null for persistent tokens. */
export const DeviceTokenIssueResponse = Schema.Struct({
  token_kind: Schema.Literal("device"),
  token: Schema.String.annotate({ description: "The secret; shown once, stored only as a SHA-256 digest." }),
  token_id: Schema.String,
  device_id: Schema.String,
  role: DeviceRole,
  scopes: Schema.Array(Scope),
  issued_at: Schema.String.annotate({ description: "ISO-8601 UTC, millisecond precision." }),
  expires_at: Schema.NullOr(Schema.String).annotate({
    description: "ISO-8601 UTC, millisecond precision: exactly issued_at + ttl_seconds; null when persistent."
  })
}).annotate({ identifier: "DeviceTokenIssueResponse" })
export type DeviceTokenIssueResponse = typeof DeviceTokenIssueResponse.Type

/** `POST /auth/device-tokens/revoke` body. */
export const DeviceTokenRevokeRequest = Schema.Struct({
  token: Schema.String.check(Schema.isNonEmpty()).annotate({ description: "The device token to revoke." })
}).annotate({ identifier: "DeviceTokenRevokeRequest" })
export type DeviceTokenRevokeRequest = typeof DeviceTokenRevokeRequest.Type

/** `POST /auth/device-tokens/revoke` 200 body. */
export const DeviceTokenRevokeResponse = Schema.Struct({
  revoked: Schema.Literal(true),
  token_id: Schema.String
}).annotate({ identifier: "DeviceTokenRevokeResponse" })
export type DeviceTokenRevokeResponse = typeof DeviceTokenRevokeResponse.Type
