/**
 * The audit chain's hashes (gateway-api.md "Audit"; docs/audit.md "Hashes"),
 * pure functions:
 *
 * - `action_sha256` = lowercase hex SHA-256 of the action's canonical JSON
 *   (RFC 8785, services/shared/canonicalJson.ts: members sorted by UTF-16
 *   code units at every level, no whitespace);
 * - `event_hash` = lowercase hex SHA-256 of the canonical JSON of
 *   `{action_sha256, occurred_at, plan_id, prev_hash, step_index}`.
 *
 * Hashing the action's digest rather than the action is what lets an
 * anonymized event (action erased, digest kept) still verify.
 *
 * Before issue 21 a member whose name is an array index (`"0"`, `"42"`) was
 * written before the others, in numeric order; {@link actionDigestMatches}
 * also accepts an action digest taken that way, so chains stored or exported
 * before still verify. `event_hash` never changed (its names are fixed).
 *
 * @module
 */
import { canonicalJson } from "../shared/canonicalJson.ts"
import { sha256Hex } from "../shared/sha256.ts"

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

/**
 * The JSON text action digests were taken over before issue 21: object
 * members rebuilt in sorted order, which JavaScript enumerates array-index
 * names first (numerically). Equal to {@link canonicalJson} for any action
 * without such a name. Only to verify digests written then.
 */
const legacySortedJson = (value: unknown): string => {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map((item) => (item === undefined ? null : sortKeys(item)))
    if (typeof v !== "object" || v === null) return v
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(v).sort()) {
      const member = (v as Record<string, unknown>)[key]
      if (member !== undefined) out[key] = sortKeys(member)
    }
    return out
  }
  return JSON.stringify(sortKeys(value))
}

/**
 * True when `sha256` is `action`'s digest: {@link actionDigest}, or the digest
 * a gateway before issue 21 wrote for it (see the module documentation).
 */
export const actionDigestMatches = (action: unknown, sha256: string): boolean =>
  actionDigest(action) === sha256 || sha256Hex(legacySortedJson(action)) === sha256

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
