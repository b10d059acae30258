/**
 * Wire schemas of approvals (gateway-api.md "Approvals", "States and
 * transitions"; reference §3). One record shape for HTTP and WebSocket; it
 * never carries an internal token.
 *
 * @module
 */
import { Schema, SchemaTransformation } from "effect"
import { PolicyOverride } from "../policy-bundle/schema.ts"

/** What an approval is about. */
export const ApprovalKind = Schema.Literals(["spend", "pii", "workflow_step", "policy", "budget", "pairing", "takeover", "retry", "mcp_request", "tool_call", "other"])
export type ApprovalKind = typeof ApprovalKind.Type

/** `pending` → `approved` | `denied` (respond), `expired` (its `expires_at` passed), `cancelled` (its plan or run was cancelled). */
export const ApprovalStatus = Schema.Literals(["pending", "approved", "denied", "expired", "cancelled"])
export type ApprovalStatus = typeof ApprovalStatus.Type

/** An operator's decision. */
export const ApprovalDecision = Schema.Literals(["approved", "denied"])
export type ApprovalDecision = typeof ApprovalDecision.Type

/**
 * Who moved an approval out of `pending`: over HTTP or WebSocket (`principal`
 * is the device id of a device token, `admin` for the admin token, absent when
 * gateway auth is off), or the gateway itself (expiry, cancellation). Never a token.
 */
export const ApprovalResolvedBy = Schema.Struct({
  kind: Schema.Literals(["http", "ws", "system"]),
  principal: Schema.optionalKey(Schema.String)
})
export type ApprovalResolvedBy = typeof ApprovalResolvedBy.Type

/** How a terminal approval was decided (expired and cancelled read as `denied`, reason `expired` / `cancelled`). */
export const ApprovalResolution = Schema.Struct({
  decision: ApprovalDecision,
  resolved_at: Schema.String,
  resolved_by: Schema.optionalKey(ApprovalResolvedBy),
  reason: Schema.optionalKey(Schema.String)
})
export type ApprovalResolution = typeof ApprovalResolution.Type

/** Where an approval belongs (a workflow run's key, lane, run and step). */
export const ApprovalScope = Schema.Struct({
  key: Schema.optionalKey(Schema.String),
  lane: Schema.optionalKey(Schema.String),
  run_id: Schema.optionalKey(Schema.String),
  step_index: Schema.optionalKey(Schema.Int)
})
export type ApprovalScope = typeof ApprovalScope.Type

/**
 * An approval. Invariant: `status == "pending"` exactly when `resolution` is
 * null. Times are ISO 8601 strings (UTC).
 */
export const Approval = Schema.Struct({
  id: Schema.Int.check(Schema.isGreaterThan(0)),
  kind: ApprovalKind,
  status: ApprovalStatus,
  plan_id: Schema.String,
  step_index: Schema.Int,
  prompt: Schema.String,
  context: Schema.Unknown,
  created_at: Schema.String,
  expires_at: Schema.NullOr(Schema.String),
  resolution: Schema.NullOr(ApprovalResolution),
  scope: Schema.optionalKey(ApprovalScope)
}).annotate({ identifier: "Approval" })
export type Approval = typeof Approval.Type

// ---------------------------------------------------------------------------
// Requests and responses (HTTP and WebSocket)
// ---------------------------------------------------------------------------

/** A string of 1..`max` characters. */
const text = (max: number) =>
  Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(max, { expected: `1 to ${max} characters` }))

/** Longest `reason`, in characters. */
export const MAX_REASON_LENGTH = 2000

/** Most overrides one "approve always" may select. */
export const MAX_OVERRIDE_SELECTIONS = 32

/** `status` as a filter, with the allowed values in its error message. */
export const ApprovalStatusFilter = ApprovalStatus.annotate({
  expected: "one of pending, approved, denied, expired, cancelled"
})

/** An override selected for "approve always"; must equal one of `context.policy.suggested_overrides`. */
export const ApprovalOverrideSelection = Schema.Struct({
  tool_id: Schema.String.check(Schema.isMaxLength(256, { expected: "at most 256 characters" })),
  pattern: Schema.String.check(Schema.isMaxLength(1024, { expected: "at most 1024 characters" })),
  workspace_id: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(256, { expected: "at most 256 characters" })))
})
export type ApprovalOverrideSelection = typeof ApprovalOverrideSelection.Type

const respondFields = {
  reason: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(MAX_REASON_LENGTH, { expected: `at most ${MAX_REASON_LENGTH} characters` }))
  ),
  /** `always` (only when approving) also creates the selected overrides; default `once`. */
  mode: Schema.optionalKey(Schema.Literals(["once", "always"])),
  overrides: Schema.optionalKey(
    Schema.Array(ApprovalOverrideSelection).check(
      Schema.isMaxLength(MAX_OVERRIDE_SELECTIONS, { expected: `at most ${MAX_OVERRIDE_SELECTIONS} overrides` })
    )
  )
}

/**
 * `POST /approvals/:id/respond`: `{decision, reason?, mode?, overrides?}` or
 * the legacy `{approved: boolean, reason?}`; `decision` wins when both are given.
 */
export const ApprovalRespondRequest = Schema.Struct({
  decision: Schema.optionalKey(ApprovalDecision),
  approved: Schema.optionalKey(Schema.Boolean),
  ...respondFields
}).annotate({ identifier: "ApprovalRespondRequest" })
export type ApprovalRespondRequest = typeof ApprovalRespondRequest.Type

/** A decision with its options, as the service takes it (HTTP and WebSocket alike). */
export interface ApprovalRespondInput {
  readonly decision: ApprovalDecision
  readonly reason?: string | undefined
  readonly mode?: "once" | "always" | undefined
  readonly overrides?: ReadonlyArray<ApprovalOverrideSelection> | undefined
}

/** The answer of respond / resolve: the approval, and the overrides "approve always" created (omitted when none). */
export const ApprovalRespondResponse = Schema.Struct({
  approval: Approval,
  created_overrides: Schema.optionalKey(Schema.Array(PolicyOverride))
}).annotate({ identifier: "ApprovalRespondResponse" })
export type ApprovalRespondResponse = typeof ApprovalRespondResponse.Type

/** An approval id in a path: a positive decimal integer. */
export const ApprovalIdFromString = Schema.String.check(
  Schema.isPattern(/^[0-9]{1,15}$/, { expected: "a positive integer" })
).pipe(Schema.decodeTo(
  Schema.Int.check(Schema.isGreaterThan(0, { expected: "a positive integer" })),
  SchemaTransformation.numberFromString
))

/** `GET /approvals`: `{approvals}`. */
export const ApprovalListResponse = Schema.Struct({ approvals: Schema.Array(Approval) }).annotate({
  identifier: "ApprovalListResponse"
})
export type ApprovalListResponse = typeof ApprovalListResponse.Type

/** `GET /approvals/:id`: `{approval}`. */
export const ApprovalGetResponse = Schema.Struct({ approval: Approval }).annotate({ identifier: "ApprovalGetResponse" })
export type ApprovalGetResponse = typeof ApprovalGetResponse.Type

/** `GET /approvals/:id/preview`. */
export const ApprovalPreview = Schema.Struct({
  id: Approval.fields.id,
  plan_id: Schema.String,
  step_index: Schema.Int,
  prompt: Schema.String,
  context: Schema.Unknown,
  status: ApprovalStatus,
  expires_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ApprovalPreview" })
export type ApprovalPreview = typeof ApprovalPreview.Type

/** Most approvals one `approval.list` page holds. */
export const MAX_APPROVAL_PAGE = 500

/** Default page size of `approval.list`. */
export const DEFAULT_APPROVAL_PAGE = 100

/**
 * `approval.list`: filters (`status` default `pending`; `kind` any of; scope
 * `key`, `lane`, `run_id`), `limit` 1..500 (default 100) and the opaque
 * `cursor` of the previous page's `next_cursor`. Ordered by `created_at`, then `id`.
 */
export const ApprovalListRequest = Schema.Struct({
  status: Schema.optionalKey(ApprovalStatusFilter),
  kind: Schema.optionalKey(Schema.Array(ApprovalKind).check(Schema.isMaxLength(16, { expected: "at most 16 kinds" }))),
  key: Schema.optionalKey(text(512)),
  lane: Schema.optionalKey(text(512)),
  run_id: Schema.optionalKey(text(512)),
  limit: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_APPROVAL_PAGE }, { expected: `an integer from 1 to ${MAX_APPROVAL_PAGE}` }))
  ),
  cursor: Schema.optionalKey(text(512))
}).annotate({ identifier: "ApprovalListRequest" })
export type ApprovalListRequest = typeof ApprovalListRequest.Type

/** `approval.list` result: one page, and `next_cursor` when there are more. */
export const ApprovalListResult = Schema.Struct({
  approvals: Schema.Array(Approval),
  next_cursor: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "ApprovalListResult" })
export type ApprovalListResult = typeof ApprovalListResult.Type

/** `approval.resolve`: `{approval_id, decision, reason?, mode?, overrides?}`. */
export const ApprovalResolveRequest = Schema.Struct({
  approval_id: Approval.fields.id,
  decision: ApprovalDecision,
  ...respondFields
}).annotate({ identifier: "ApprovalResolveRequest" })
export type ApprovalResolveRequest = typeof ApprovalResolveRequest.Type

/** Payload of the gateway-initiated `approval.request` (request_id `approval-<id>`). */
export const ApprovalRequestPayload = Schema.Struct({
  approval_id: Approval.fields.id,
  plan_id: Schema.String,
  step_index: Schema.Int,
  prompt: Schema.String,
  context: Schema.optionalKey(Schema.Unknown),
  expires_at: Schema.optionalKey(Schema.NullOr(Schema.String))
}).annotate({ identifier: "ApprovalRequestPayload" })
export type ApprovalRequestPayload = typeof ApprovalRequestPayload.Type

/** A client's answer to `approval.request` (the reference's WsApprovalDecision): `{approved, reason?}`. */
export const WsApprovalDecision = Schema.Struct({
  approved: Schema.Boolean,
  reason: respondFields.reason
}).annotate({ identifier: "WsApprovalDecision" })
export type WsApprovalDecision = typeof WsApprovalDecision.Type
