/**
 * Wire schemas of auth profiles and session pins (gateway-api.md "Auth
 * profiles and session pins", "States and transitions"; reference §7.1,
 * §7.11; docs/auth-profiles.md). A profile names a provider credential by
 * secret handles only: a secret value never appears in a record.
 *
 * @module
 */
import { Schema } from "effect"
import { AgentId } from "../shared/agent.ts"

/** A string of 1..`max` characters. */
const text = (max: number) =>
  Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(max, { expected: `1 to ${max} characters` }))

export { AGENT_ID_PATTERN, AgentId, DEFAULT_AGENT_ID } from "../shared/agent.ts"

/** A provider id (`openai`, `anthropic`, …): 1–64 characters. */
export const ProviderId = text(64)

/** A session id: 1–256 characters. */
export const SessionId = text(256)

/** A secret handle id as other records reference it: 1–256 characters. */
export const SecretHandleRef = text(256)

/** An auth profile id: `ap_<uuid>` for the ones the gateway creates (any 1–128 characters is accepted as a key). */
export const AuthProfileId = text(128)

/** What kind of credential a profile holds. */
export const AuthProfileType = Schema.Literals(["api_key", "oauth", "token"])
export type AuthProfileType = typeof AuthProfileType.Type

/** `active` → `disabled` (disable, or its secret handle revoked); `disabled` → `active` (enable). */
export const AuthProfileStatus = Schema.Literals(["active", "disabled"])
export type AuthProfileStatus = typeof AuthProfileStatus.Type

/**
 * The handles of a profile's secrets. `api_key` profiles carry `api_key`
 * only; `oauth` profiles `access_token` and optionally `refresh_token`;
 * `token` profiles `access_token` only.
 */
export const AuthProfileSecretHandles = Schema.Struct({
  api_key: Schema.optionalKey(SecretHandleRef),
  access_token: Schema.optionalKey(SecretHandleRef),
  refresh_token: Schema.optionalKey(SecretHandleRef)
})
export type AuthProfileSecretHandles = typeof AuthProfileSecretHandles.Type

/** Most labels on one profile. */
export const MAX_LABELS = 32

/** Free-form labels: at most 32, keys 1–64 characters, values at most 256 characters. */
export const AuthProfileLabels = Schema.Record(
  Schema.String,
  Schema.String.check(Schema.isMaxLength(256, { expected: "at most 256 characters" }))
).check(
  // On the keys as a check (JSON Schema `propertyNames`), not as the record's key schema: a record drops keys that do
  // not fit its key schema, and a bad label key must be a 400.
  Schema.isPropertyNames(text(64), { expected: "label keys of 1 to 64 characters" }),
  Schema.isMaxProperties(MAX_LABELS, { expected: `at most ${MAX_LABELS} labels` })
)
export type AuthProfileLabels = typeof AuthProfileLabels.Type

/** Longest `disabled_reason`, in characters. */
export const MAX_REASON_LENGTH = 500

/** An auth profile. Times are ISO 8601 (UTC, milliseconds). `disabled_reason` only while disabled. */
export const AuthProfile = Schema.Struct({
  auth_profile_id: Schema.String,
  agent_id: Schema.String,
  provider: Schema.String,
  type: AuthProfileType,
  secret_handles: AuthProfileSecretHandles,
  labels: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  status: AuthProfileStatus,
  created_at: Schema.String,
  updated_at: Schema.String,
  disabled_reason: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "AuthProfile" })
export type AuthProfile = typeof AuthProfile.Type

/** The record's type under its historical name (services/auth-profiles/AuthProfiles.ts). */
export type AuthProfileRecord = AuthProfile

/** A session's pinned profile for one provider: unique per (`agent_id`, `session_id`, `provider`). */
export const SessionProviderPin = Schema.Struct({
  agent_id: Schema.String,
  session_id: Schema.String,
  provider: Schema.String,
  auth_profile_id: Schema.String,
  pinned_at: Schema.String
}).annotate({ identifier: "SessionProviderPin" })
export type SessionProviderPin = typeof SessionProviderPin.Type

// ---------------------------------------------------------------------------
// Requests and responses
// ---------------------------------------------------------------------------

/** `GET /auth/profiles` filters. */
export const AuthProfileListQuery = {
  agent_id: Schema.optionalKey(AgentId),
  provider: Schema.optionalKey(ProviderId),
  status: Schema.optionalKey(AuthProfileStatus.annotate({ expected: "one of active, disabled" }))
}

/** `GET /auth/profiles` → `{profiles}`, by `created_at` then id. */
export const AuthProfileListResponse = Schema.Struct({ profiles: Schema.Array(AuthProfile) }).annotate({
  identifier: "AuthProfileListResponse"
})
export type AuthProfileListResponse = typeof AuthProfileListResponse.Type

/** `POST /auth/profiles`: the handles must exist (else 400) and match `type`. `agent_id` defaults to `default`. */
export const AuthProfileCreateRequest = Schema.Struct({
  agent_id: Schema.optionalKey(AgentId),
  provider: ProviderId,
  type: AuthProfileType,
  secret_handles: AuthProfileSecretHandles,
  labels: Schema.optionalKey(AuthProfileLabels)
}).annotate({ identifier: "AuthProfileCreateRequest" })
export type AuthProfileCreateRequest = typeof AuthProfileCreateRequest.Type

/** `POST /auth/profiles` → 201 `{profile}`. */
export const AuthProfileCreateResponse = Schema.Struct({ profile: AuthProfile }).annotate({
  identifier: "AuthProfileCreateResponse"
})
export type AuthProfileCreateResponse = typeof AuthProfileCreateResponse.Type

/**
 * `PATCH /auth/profiles/:id`: any of `type`, `secret_handles` (replaces the
 * whole set; must exist and match the resulting type), `labels` (replaces
 * them; `{}` removes them). `agent_id` and `provider` are not patchable (pins
 * and selection key on them): create another profile instead.
 */
export const AuthProfileUpdateRequest = Schema.Struct({
  type: Schema.optionalKey(AuthProfileType),
  secret_handles: Schema.optionalKey(AuthProfileSecretHandles),
  labels: Schema.optionalKey(AuthProfileLabels)
}).annotate({ identifier: "AuthProfileUpdateRequest" })
export type AuthProfileUpdateRequest = typeof AuthProfileUpdateRequest.Type

/** `POST /auth/profiles/:id/disable` `{reason?}`. */
export const AuthProfileDisableRequest = Schema.Struct({
  reason: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(MAX_REASON_LENGTH, { expected: `at most ${MAX_REASON_LENGTH} characters` }))
  )
}).annotate({ identifier: "AuthProfileDisableRequest" })
export type AuthProfileDisableRequest = typeof AuthProfileDisableRequest.Type

/** `POST /auth/profiles/:id/enable` `{}`. */
export const AuthProfileEnableRequest = Schema.Struct({}).annotate({ identifier: "AuthProfileEnableRequest" })
export type AuthProfileEnableRequest = typeof AuthProfileEnableRequest.Type

/** `PATCH`, `/disable`, `/enable` → 200 `{status: "ok", profile}`. */
export const AuthProfileResponse = Schema.Struct({ status: Schema.Literal("ok"), profile: AuthProfile }).annotate({
  identifier: "AuthProfileResponse"
})
export type AuthProfileResponse = typeof AuthProfileResponse.Type

/** `GET /auth/pins` filters. */
export const SessionProviderPinListQuery = {
  agent_id: Schema.optionalKey(AgentId),
  session_id: Schema.optionalKey(SessionId),
  provider: Schema.optionalKey(ProviderId)
}

/** `GET /auth/pins` → `{pins}`. */
export const SessionProviderPinListResponse = Schema.Struct({ pins: Schema.Array(SessionProviderPin) }).annotate({
  identifier: "SessionProviderPinListResponse"
})
export type SessionProviderPinListResponse = typeof SessionProviderPinListResponse.Type

/**
 * `POST /auth/pins`: sets (replaces) the pin, or clears it with
 * `profile_id: null`. The profile must exist, be active and belong to the
 * same agent and provider. `agent_id` defaults to `default`.
 */
export const SessionProviderPinSetRequest = Schema.Struct({
  agent_id: Schema.optionalKey(AgentId),
  session_id: SessionId,
  provider: ProviderId,
  profile_id: Schema.NullOr(AuthProfileId)
}).annotate({ identifier: "SessionProviderPinSetRequest" })
export type SessionProviderPinSetRequest = typeof SessionProviderPinSetRequest.Type

/** A pin was set: 201 `{status: "ok", pin}`. */
export const SessionProviderPinSetResponse = Schema.Struct({ status: Schema.Literal("ok"), pin: SessionProviderPin })
  .annotate({ identifier: "SessionProviderPinSetResponse" })
export type SessionProviderPinSetResponse = typeof SessionProviderPinSetResponse.Type

/** A pin was cleared: 200 `{status: "ok", cleared}` (`false` when there was none). */
export const SessionProviderPinClearResponse = Schema.Struct({ status: Schema.Literal("ok"), cleared: Schema.Boolean })
  .annotate({ identifier: "SessionProviderPinClearResponse" })
export type SessionProviderPinClearResponse = typeof SessionProviderPinClearResponse.Type
