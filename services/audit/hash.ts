/**
 * The audit chain's hashes (gateway-api.md "Audit"; docs/audit.md "Hashes"),
 * pure functions:
 *
 * - `action_sha256` = lowercase hex SHA-256 of the action's canonical JSON
 *   (services/policy-bundle/canonicalJson.ts: keys sorted at every level, no
 *   whitespace);
 * - `event_hash` = lowercase hex SHA-256 of the canonical JSON of
 *   `{action_sha256, occurred_at, plan_id, prev_hash, step_index}`.
 *
 * Hashing the action's digest rather than the action is what lets an
 * anonymized event (action erased, digest kept) still verify.
 *
 * @module
 */
import { canonicalJson, sha256Hex } from "../policy-bundle/canonicalJson.ts"

/** The fields an event's hash covers. */
export interface HashedFields {
  readonly plan_id: string
  readonly step_index: number
  readonly occurred_at: string
  readonly action_sha256: string
  /** `event_hash` of the previous event of the chain; null for its first. */
  readonly prev_hash: string | null
}

/** Lowercase hex SHA-256 of `action`'s canonical JSON. */
export const actionDigest = (action: unknown): string => sha256Hex(canonicalJson(action))

/** The canonical text an event's hash is taken over (keys in sorted order). */
export const hashInput = (fields: HashedFields): string =>
  canonicalJson({
    action_sha256: fields.action_sha256,
    occurred_at: fields.occurred_at,
    plan_id: fields.plan_id,
    prev_hash: fields.prev_hash,
    step_index: fields.step_index
  })

/** Lowercase hex SHA-256 of {@link hashInput}: an event's `event_hash`. */
export const eventHash = (fields: HashedFields): string => sha256Hex(hashInput(fields))
