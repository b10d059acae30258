/**
 * Wire schemas of the audit chain (gateway-api.md "Audit"; docs/audit.md).
 * One event shape for export and verification; ids are the database's
 * integer ids, times ISO 8601 UTC strings, hashes lowercase hex SHA-256.
 *
 * @module
 */
import { Schema } from "effect"
import { bounded } from "../shared/json.ts"

/** What an action verified over HTTP may be: JSON nested at most 64 deep, at most 1 MiB. */
const ActionJson = bounded(Schema.Unknown, { maxDepth: 64, maxBytes: 1024 * 1024, maxEntries: 100_000 })

/**
 * One event of a chain. `action` is the recorded JSON (redacted before it
 * was hashed; null once anonymized); `action_sha256` its digest;
 * `event_hash` covers `{action_sha256, occurred_at, plan_id, prev_hash,
 * step_index}`; `prev_hash` is the previous event's `event_hash` (null for
 * the chain's first).
 */
export const AuditEvent = Schema.Struct({
  id: Schema.Int,
  plan_id: Schema.String,
  step_index: Schema.Int,
  occurred_at: Schema.String,
  action: Schema.Unknown,
  action_sha256: Schema.String,
  prev_hash: Schema.NullOr(Schema.String),
  event_hash: Schema.String
}).annotate({ identifier: "AuditEvent" })
export type AuditEvent = typeof AuditEvent.Type

/**
 * An event given to `POST /audit/verify`: the exported shape; `action` may
 * be absent or null (then only the hashes are checked).
 */
export const ChainableEvent = AuditEvent.mapFields((fields) => ({ ...fields, action: Schema.optionalKey(ActionJson) }))
  .annotate({ identifier: "ChainableEvent" })
export type ChainableEvent = typeof ChainableEvent.Type

/**
 * The outcome of verifying a chain: `checked_count` events were examined
 * (all of them when valid; up to and including the first broken one
 * otherwise), `broken_at_index` / `broken_at_id` name that event (null when
 * valid).
 */
export const AuditVerifyResult = Schema.Struct({
  valid: Schema.Boolean,
  checked_count: Schema.Int,
  broken_at_index: Schema.NullOr(Schema.Int),
  broken_at_id: Schema.NullOr(Schema.Int)
}).annotate({ identifier: "AuditVerifyResult" })
export type AuditVerifyResult = typeof AuditVerifyResult.Type

/** Body of `POST /audit/verify`. */
export const AuditVerifyRequest = Schema.Struct({ events: Schema.Array(ChainableEvent) }).annotate({
  identifier: "AuditVerifyRequest"
})
export type AuditVerifyRequest = typeof AuditVerifyRequest.Type

/** `GET /audit/export/:planId` → 200: the chain in step order, verified as stored. */
export const AuditReceiptBundle = Schema.Struct({
  plan_id: Schema.String,
  events: Schema.Array(AuditEvent),
  chain_verification: AuditVerifyResult,
  exported_at: Schema.String
}).annotate({ identifier: "AuditReceiptBundle" })
export type AuditReceiptBundle = typeof AuditReceiptBundle.Type

/** What `POST /audit/forget` does with the chain's events. */
export const ForgetDecision = Schema.Literals(["delete", "anonymize", "retain"]).annotate({
  expected: "one of delete, anonymize, retain"
})
export type ForgetDecision = typeof ForgetDecision.Type

/**
 * Body of `POST /audit/forget`: `entity_id` names the chain of the subject
 * whose data is forgotten (a plan id; a `gateway.*` security chain is refused
 * by the service); `entity_type` is recorded in the proof event.
 */
export const AuditForgetRequest = Schema.Struct({
  confirm: Schema.Literal("FORGET").annotate({ expected: "\"FORGET\"" }),
  entity_type: Schema.String.check(
    Schema.isMinLength(1, { expected: "1 to 64 characters" }),
    Schema.isMaxLength(64, { expected: "1 to 64 characters" })
  ),
  entity_id: Schema.String.check(
    Schema.isMinLength(1, { expected: "1 to 256 characters" }),
    Schema.isMaxLength(256, { expected: "1 to 256 characters" })
  ),
  decision: ForgetDecision
}).annotate({ identifier: "AuditForgetRequest" })
export type AuditForgetRequest = typeof AuditForgetRequest.Type

/**
 * `POST /audit/forget` → 200. `deleted_count`: events removed (delete) or
 * whose action was erased (anonymize); 0 for retain. `proof_event_id`: the
 * `forget.proof` event appended to the chain.
 */
export const AuditForgetResponse = Schema.Struct({
  decision: ForgetDecision,
  deleted_count: Schema.Int,
  proof_event_id: Schema.Int
}).annotate({ identifier: "AuditForgetResponse" })
export type AuditForgetResponse = typeof AuditForgetResponse.Type

/** An action to record: a JSON object with a `type` (e.g. `plan.created`, `auth.failed`). */
export interface AuditAction {
  readonly type: string
  readonly [field: string]: unknown
}
