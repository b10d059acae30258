/**
 * Wire schemas of node pairing (gateway-api.md "Pairing (node enrollment)",
 * "States and transitions"; reference §4; docs/pairing.md). One record shape
 * for HTTP, WebSocket and events; it never carries the scoped token or its
 * digest (only `pairing.approved`, sent to the node itself, carries the token).
 *
 * @module
 */
import { Schema, SchemaTransformation } from "effect"
import { CapabilityDescriptor, MAX_CAPABILITIES } from "../ws-sessions/schema.ts"

/** `pending` → `approved` | `denied`; any but `revoked` → `revoked`; a denied or revoked node that connects again → `pending`. */
export const PairingStatus = Schema.Literals(["pending", "approved", "denied", "revoked"])
export type PairingStatus = typeof PairingStatus.Type

/** How far the gateway trusts an approved node. */
export const TrustLevel = Schema.Literals(["local", "remote"])
export type TrustLevel = typeof TrustLevel.Type

/** The node a pairing is for, as it last connected. */
export const PairingNode = Schema.Struct({
  node_id: Schema.String,
  label: Schema.optionalKey(Schema.String),
  capabilities: Schema.Array(CapabilityDescriptor),
  last_seen_at: Schema.String,
  metadata: Schema.optionalKey(Schema.Unknown)
})
export type PairingNode = typeof PairingNode.Type

/**
 * Who resolved a pairing: over HTTP or WebSocket; `principal` is the device
 * id of a device token, `admin` for the admin token, absent when gateway auth
 * is off. Never a token.
 */
export const PairingResolvedBy = Schema.Struct({
  kind: Schema.Literals(["http", "ws"]),
  principal: Schema.optionalKey(Schema.String)
})
export type PairingResolvedBy = typeof PairingResolvedBy.Type

/** How a pairing was last resolved. */
export const PairingResolution = Schema.Struct({
  decision: Schema.Literals(["approved", "denied", "revoked"]),
  resolved_at: Schema.String,
  reason: Schema.optionalKey(Schema.String),
  resolved_by: Schema.optionalKey(PairingResolvedBy)
})
export type PairingResolution = typeof PairingResolution.Type

/**
 * A pairing record. `trust_level` is null until approved; `resolution` and
 * `resolved_at` are null exactly while pending. Never carries the scoped
 * token or its digest. Times are ISO 8601 (UTC, milliseconds).
 */
export const Pairing = Schema.Struct({
  pairing_id: Schema.Int,
  status: PairingStatus,
  trust_level: Schema.NullOr(TrustLevel),
  requested_at: Schema.String,
  node: PairingNode,
  capability_allowlist: Schema.Array(CapabilityDescriptor),
  resolution: Schema.NullOr(PairingResolution),
  resolved_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "Pairing" })
export type Pairing = typeof Pairing.Type

// ---------------------------------------------------------------------------
// Requests and responses (HTTP and WebSocket)
// ---------------------------------------------------------------------------

/** Longest `reason`, in characters. */
export const MAX_PAIRING_REASON_LENGTH = 2000

/** `status` as a filter, with the allowed values in its error message. */
export const PairingStatusFilter = PairingStatus.annotate({ expected: "one of pending, approved, denied, revoked" })

const reason = Schema.optionalKey(
  Schema.String.check(
    Schema.isMaxLength(MAX_PAIRING_REASON_LENGTH, { expected: `at most ${MAX_PAIRING_REASON_LENGTH} characters` })
  )
)

const approveFields = {
  trust_level: TrustLevel.annotate({ expected: "one of local, remote" }),
  capability_allowlist: Schema.Array(CapabilityDescriptor).check(
    Schema.isMaxLength(MAX_CAPABILITIES, { expected: `an array of at most ${MAX_CAPABILITIES} CapabilityDescriptor` })
  ),
  reason
}

/** `POST /pairings/:id/approve`: `{trust_level, capability_allowlist, reason?}`; both required. */
export const PairingApproveRequest = Schema.Struct(approveFields).annotate({ identifier: "PairingApproveRequest" })
export type PairingApproveRequest = typeof PairingApproveRequest.Type

/** `POST /pairings/:id/deny` and `/revoke`: `{reason?}`. */
export const PairingDecisionRequest = Schema.Struct({ reason }).annotate({ identifier: "PairingDecisionRequest" })
export type PairingDecisionRequest = typeof PairingDecisionRequest.Type

/** A pairing id in a path: a positive decimal integer. */
export const PairingIdFromString = Schema.String.check(
  Schema.isPattern(/^[0-9]{1,15}$/, { expected: "a positive integer" })
).pipe(Schema.decodeTo(
  Schema.Int.check(Schema.isGreaterThan(0, { expected: "a positive integer" })),
  SchemaTransformation.numberFromString
))

/** A pairing id in a WebSocket payload. */
const pairingId = Schema.Int.check(Schema.isGreaterThan(0, { expected: "a positive integer" }))

/** `GET /pairings`: `{status: "ok", pairings}`, newest first. */
export const PairingListResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  pairings: Schema.Array(Pairing)
}).annotate({ identifier: "PairingListResponse" })
export type PairingListResponse = typeof PairingListResponse.Type

/** `POST /pairings/:id/approve|deny|revoke`: `{status: "ok", pairing}`. */
export const PairingResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  pairing: Pairing
}).annotate({ identifier: "PairingResponse" })
export type PairingResponse = typeof PairingResponse.Type

/** `pairing.approve`: `{pairing_id, trust_level, capability_allowlist, reason?}`. */
export const WsPairingApproveRequest = Schema.Struct({ pairing_id: pairingId, ...approveFields }).annotate({
  identifier: "WsPairingApproveRequest"
})
export type WsPairingApproveRequest = typeof WsPairingApproveRequest.Type

/** `pairing.deny`: `{pairing_id, reason?}`. */
export const WsPairingDenyRequest = Schema.Struct({ pairing_id: pairingId, reason }).annotate({
  identifier: "WsPairingDenyRequest"
})
export type WsPairingDenyRequest = typeof WsPairingDenyRequest.Type

/** `pairing.revoke`: `{pairing_id, reason?}`. */
export const WsPairingRevokeRequest = Schema.Struct({ pairing_id: pairingId, reason }).annotate({
  identifier: "WsPairingRevokeRequest"
})
export type WsPairingRevokeRequest = typeof WsPairingRevokeRequest.Type

/** Result of `pairing.approve|deny|revoke`: `{pairing}`. */
export const WsPairingResolveResult = Schema.Struct({ pairing: Pairing }).annotate({ identifier: "WsPairingResolveResult" })
export type WsPairingResolveResult = typeof WsPairingResolveResult.Type

/**
 * Payload of `pairing.approved`, sent only to the live connections of the
 * approved node: the pairing and its scoped token (shown this once; the
 * gateway keeps only its digest).
 */
export const PairingApprovedPayload = Schema.Struct({
  pairing: Pairing,
  scoped_token: Schema.String
}).annotate({ identifier: "PairingApprovedPayload" })
export type PairingApprovedPayload = typeof PairingApprovedPayload.Type
