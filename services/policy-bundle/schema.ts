/**
 * Wire schemas of the policy bundle and its overrides (gateway-api.md
 * "Policy"; reference §1.3, §1.4; docs/policy-bundle.md). Shared by the
 * gateway, the HTTP declarations and the clients: schemas only.
 *
 * - {@link PolicyBundleV1}: a bundle file as written (YAML or JSON), with the
 *   defaults of reference §1.3 applied on decode. Files are decoded strictly
 *   (unknown keys are errors) by `decodePolicyBundle` (bundle.ts).
 * - {@link MergedPolicyBundle}: the effective bundle, every domain present.
 * - Overrides: {@link PolicyOverride} and the list/create/revoke requests.
 *
 * @module
 */
import { Effect, Schema, SchemaTransformation } from "effect"
import { bounded, SMALL_JSON } from "../shared/json.ts"

// ---------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------

/** Decisions from least to most restrictive. */
export const BUNDLE_DECISIONS = ["allow", "require_approval", "deny"] as const

/** A policy decision. (No `identifier`: errors then read "expected one of …".) */
export const BundleDecision = Schema.Literals(BUNDLE_DECISIONS).annotate({
  description: "allow, require_approval or deny.",
  expected: `one of ${BUNDLE_DECISIONS.join(", ")}`
})
export type BundleDecision = typeof BundleDecision.Type

/** A string trimmed on decode (the wording of errors stays "expected a string"). */
const TrimmedString = Schema.String.pipe(Schema.decodeTo(Schema.Trimmed, SchemaTransformation.trim()))

/** A trimmed, non-empty string of at most `max` characters. */
const nonEmpty = (max: number, what = "a non-empty string") =>
  TrimmedString.check(
    Schema.isNonEmpty({ expected: what }),
    Schema.isMaxLength(max, { expected: `at most ${max} characters` })
  )

/** A positive safe integer (days, bytes). */
const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0, { expected: "a positive integer" }))

/** Longest glob pattern in a bundle or an override, in characters. */
export const MAX_POLICY_PATTERN_LENGTH = 1024

/** A glob pattern (`*` any run of characters, `?` exactly one): trimmed, not empty. */
export const PolicyPattern = nonEmpty(MAX_POLICY_PATTERN_LENGTH, "a non-empty pattern").annotate({
  description: "Glob pattern: * matches any run of characters (also none), ? exactly one. No regular expressions."
})

// ---------------------------------------------------------------------------
// PolicyBundleV1 (reference §1.3)
// ---------------------------------------------------------------------------

const patternList = Schema.Array(PolicyPattern).pipe(Schema.withDecodingDefaultKey(Effect.succeed([])))

/** One evaluated domain as written: `default` (here `deny` when absent) and three pattern lists (default `[]`). */
const domainInput = Schema.Struct({
  default: BundleDecision.pipe(Schema.withDecodingDefaultKey(Effect.succeed("deny" as const))),
  allow: patternList,
  require_approval: patternList,
  deny: patternList
})

/** A number per artifact sensitivity class. */
export const SensitivityNumbers = Schema.Struct({
  normal: Schema.optionalKey(PositiveInt),
  sensitive: Schema.optionalKey(PositiveInt)
})
export type SensitivityNumbers = typeof SensitivityNumbers.Type

/** Artifact retention in days: a default, by label, by sensitivity, by label and sensitivity. */
export const ArtifactRetention = Schema.Struct({
  default_days: Schema.optionalKey(PositiveInt),
  by_label: Schema.optionalKey(Schema.Record(Schema.String, PositiveInt)),
  by_sensitivity: Schema.optionalKey(SensitivityNumbers),
  by_label_sensitivity: Schema.optionalKey(Schema.Record(Schema.String, SensitivityNumbers))
})
export type ArtifactRetention = typeof ArtifactRetention.Type

/** Artifact quotas in bytes: a default, by label, by sensitivity, by label and sensitivity. */
export const ArtifactQuota = Schema.Struct({
  default_max_bytes: Schema.optionalKey(PositiveInt),
  by_label: Schema.optionalKey(Schema.Record(Schema.String, PositiveInt)),
  by_sensitivity: Schema.optionalKey(SensitivityNumbers),
  by_label_sensitivity: Schema.optionalKey(Schema.Record(Schema.String, SensitivityNumbers))
})
export type ArtifactQuota = typeof ArtifactQuota.Type

const artifactsInput = Schema.Struct({
  default: BundleDecision.pipe(Schema.withDecodingDefaultKey(Effect.succeed("allow" as const))),
  retention_days: Schema.optionalKey(PositiveInt),
  max_bytes: Schema.optionalKey(PositiveInt),
  max_total_bytes: Schema.optionalKey(PositiveInt),
  retention: Schema.optionalKey(ArtifactRetention),
  quota: Schema.optionalKey(ArtifactQuota)
})

const provenanceInput = Schema.Struct({
  untrusted_shell_requires_approval: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(true)))
})

/**
 * A policy bundle file, version 1 (reference §1.3). Every section is
 * optional; a present domain gets `default: deny` and empty lists where
 * absent, `artifacts.default` is `allow` and
 * `provenance.untrusted_shell_requires_approval` is `true` unless given.
 */
export const PolicyBundleV1 = Schema.Struct({
  v: Schema.Literal(1),
  tools: Schema.optionalKey(domainInput),
  network_egress: Schema.optionalKey(domainInput),
  secrets: Schema.optionalKey(domainInput),
  connectors: Schema.optionalKey(domainInput),
  artifacts: Schema.optionalKey(artifactsInput),
  provenance: Schema.optionalKey(provenanceInput)
}).annotate({ expected: "a policy bundle object ({v: 1, …})" })
/** A decoded bundle file (defaults applied). */
export type PolicyBundleV1 = typeof PolicyBundleV1.Type

/** One domain of the effective bundle. */
export const PolicyDomain = Schema.Struct({
  default: BundleDecision,
  allow: Schema.Array(Schema.String),
  require_approval: Schema.Array(Schema.String),
  deny: Schema.Array(Schema.String)
}).annotate({ identifier: "PolicyDomain" })
export type PolicyDomain = typeof PolicyDomain.Type

/**
 * The effective (merged) bundle: every domain present (reference §1.3
 * "The merged bundle always contains every domain"). Also the shape of a
 * stored policy snapshot.
 */
export const MergedPolicyBundle = Schema.Struct({
  v: Schema.Literal(1),
  tools: PolicyDomain,
  network_egress: PolicyDomain,
  secrets: PolicyDomain,
  connectors: PolicyDomain,
  artifacts: Schema.Struct({
    default: BundleDecision,
    retention_days: Schema.optionalKey(Schema.Int),
    max_bytes: Schema.optionalKey(Schema.Int),
    max_total_bytes: Schema.optionalKey(Schema.Int),
    retention: Schema.optionalKey(ArtifactRetention),
    quota: Schema.optionalKey(ArtifactQuota)
  }),
  provenance: Schema.Struct({ untrusted_shell_requires_approval: Schema.Boolean })
}).annotate({ identifier: "PolicyBundle" })
export type MergedPolicyBundle = typeof MergedPolicyBundle.Type

/** Where the effective bundle came from (reference §1.3). */
export const PolicyBundleSources = Schema.Struct({
  deployment: Schema.String.annotate({ description: "Path of SVC_POLICY_BUNDLE_PATH, or \"default\" (the built-in bundle)." }),
  agent: Schema.NullOr(Schema.String).annotate({ description: "Path of $SVC_HOME/policy.yml|yaml|json when one was merged, else null." }),
  playbook: Schema.NullOr(Schema.Literal("inline")).annotate({ description: "\"inline\" when a playbook's own bundle was merged." })
}).annotate({ identifier: "PolicyBundleSources" })
export type PolicyBundleSources = typeof PolicyBundleSources.Type

/** The effective bundle with its canonical SHA-256 (lowercase hex) and its sources. */
export const EffectivePolicyBundle = Schema.Struct({
  sha256: Schema.String,
  bundle: MergedPolicyBundle,
  sources: PolicyBundleSources
}).annotate({ identifier: "EffectivePolicyBundle" })
export type EffectivePolicyBundle = typeof EffectivePolicyBundle.Type

/** `GET /policy/bundle` 200 body. */
export const PolicyBundleResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  generated_at: Schema.String,
  effective: EffectivePolicyBundle
}).annotate({ identifier: "PolicyBundleResponse" })
export type PolicyBundleResponse = typeof PolicyBundleResponse.Type

// ---------------------------------------------------------------------------
// Overrides (reference §1.4)
// ---------------------------------------------------------------------------

/** Override statuses: `active` → `revoked` (revoke) | `expired` (its `expires_at` passed). */
export const PolicyOverrideStatus = Schema.Literals(["active", "revoked", "expired"]).annotate({
  expected: "one of active, revoked, expired"
})
export type PolicyOverrideStatus = typeof PolicyOverrideStatus.Type

/**
 * A policy override ("approve always", reference §1.4): lets `agent_id` run
 * `tool_id` on match targets matching `pattern` (glob: `*`, `?`) without an
 * approval, where the tool rule alone asked for one. Never relaxes a deny.
 * Times are ISO 8601 strings.
 */
export const PolicyOverride = Schema.Struct({
  policy_override_id: Schema.String,
  status: PolicyOverrideStatus,
  created_at: Schema.String,
  created_by: Schema.optionalKey(Schema.Unknown),
  agent_id: Schema.String,
  workspace_id: Schema.optionalKey(Schema.String),
  tool_id: Schema.String,
  pattern: Schema.String,
  created_from_approval_id: Schema.optionalKey(Schema.Int),
  created_from_policy_snapshot_id: Schema.optionalKey(Schema.String),
  expires_at: Schema.optionalKey(Schema.NullOr(Schema.String)),
  revoked_at: Schema.optionalKey(Schema.String),
  revoked_by: Schema.optionalKey(Schema.Unknown),
  revoked_reason: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "PolicyOverride" })
export type PolicyOverride = typeof PolicyOverride.Type

/** Longest agent or tool id, in characters. */
const MAX_ID_LENGTH = 256

/** An agent id: trimmed, 1..256 characters, no `:` (reference §1.4). */
export const OverrideAgentId = nonEmpty(MAX_ID_LENGTH).check(
  Schema.isPattern(/^[^:]*$/, { expected: "an agent id without ':'" })
)

/** A workspace id: a DNS label (lowercase letters, digits and '-', 1..63 characters; reference §1.4). */
export const OverrideWorkspaceId = TrimmedString.check(
  Schema.isPattern(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, {
    expected: "a DNS label (lowercase letters, digits and '-', at most 63 characters)"
  })
)

/** A tool id: trimmed, 1..256 characters. */
export const OverrideToolId = nonEmpty(MAX_ID_LENGTH)

/** A UUID (override and snapshot ids). */
const Uuid = TrimmedString.check(Schema.isUUID(undefined, { expected: "a UUID" }))

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/

/** An ISO 8601 date-time with a zone (`Z` or `±hh:mm`), years 1970..9999; stored normalised to UTC milliseconds. */
const IsoDateTime = Schema.String.check(
  Schema.makeFilter((s: string) => {
    if (!ISO_DATE_TIME.test(s)) return false
    const ms = Date.parse(s)
    return Number.isFinite(ms) && ms >= 0 && ms < Date.UTC(10000, 0, 1)
  }, { expected: "an ISO 8601 date-time with a time zone, e.g. 2030-01-01T00:00:00Z" })
)

/** Largest `created_from_approval_id` (a 32-bit database integer). */
export const MAX_APPROVAL_ID = 2_147_483_647

/**
 * `POST /policy/overrides` body (reference §1.4). Unknown keys are ignored
 * (the gateway's request convention). `created_by` is free-form JSON (≤ 8 KiB;
 * default `{kind: "http"}` over HTTP); `expires_at` absent or null: never
 * expires, else it must lie in the future.
 */
export const PolicyOverrideCreateRequest = Schema.Struct({
  agent_id: OverrideAgentId,
  workspace_id: Schema.optionalKey(OverrideWorkspaceId),
  tool_id: OverrideToolId,
  pattern: PolicyPattern,
  created_by: Schema.optionalKey(bounded(Schema.Unknown, SMALL_JSON)),
  created_from_approval_id: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_APPROVAL_ID }, { expected: `an integer from 1 to ${MAX_APPROVAL_ID}` }))
  ),
  created_from_policy_snapshot_id: Schema.optionalKey(Uuid),
  expires_at: Schema.optionalKey(Schema.NullOr(IsoDateTime))
}).annotate({ identifier: "PolicyOverrideCreateRequest", expected: "a JSON object" })
export type PolicyOverrideCreateRequest = typeof PolicyOverrideCreateRequest.Type

/** `POST /policy/overrides` 201 body. */
export const PolicyOverrideCreateResponse = Schema.Struct({ override: PolicyOverride }).annotate({
  identifier: "PolicyOverrideCreateResponse"
})
export type PolicyOverrideCreateResponse = typeof PolicyOverrideCreateResponse.Type

/** `POST /policy/overrides/revoke` body: the override and an optional reason (1..1024 characters). */
export const PolicyOverrideRevokeRequest = Schema.Struct({
  policy_override_id: Uuid,
  reason: Schema.optionalKey(nonEmpty(1024))
}).annotate({ identifier: "PolicyOverrideRevokeRequest", expected: "a JSON object" })
export type PolicyOverrideRevokeRequest = typeof PolicyOverrideRevokeRequest.Type

/** `POST /policy/overrides/revoke` 200 body. */
export const PolicyOverrideRevokeResponse = Schema.Struct({ override: PolicyOverride }).annotate({
  identifier: "PolicyOverrideRevokeResponse"
})
export type PolicyOverrideRevokeResponse = typeof PolicyOverrideRevokeResponse.Type

/** Page size of `GET /policy/overrides`: 1..500, default 100. */
export const MAX_OVERRIDE_LIST_LIMIT = 500
export const DEFAULT_OVERRIDE_LIST_LIMIT = 100

/**
 * `GET /policy/overrides` query (reference §1.4 PolicyOverrideListRequest).
 * `cursor` is the opaque `next_cursor` of the previous page.
 */
export const PolicyOverrideListRequest = Schema.Struct({
  agent_id: Schema.optionalKey(OverrideAgentId),
  tool_id: Schema.optionalKey(OverrideToolId),
  status: Schema.optionalKey(PolicyOverrideStatus),
  limit: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_OVERRIDE_LIST_LIMIT }, { expected: `an integer from 1 to ${MAX_OVERRIDE_LIST_LIMIT}` }))
  ),
  cursor: Schema.optionalKey(nonEmpty(512))
})
export type PolicyOverrideListRequest = typeof PolicyOverrideListRequest.Type

/** `GET /policy/overrides` 200 body: newest first; `next_cursor` when more remain. */
export const PolicyOverrideListResponse = Schema.Struct({
  overrides: Schema.Array(PolicyOverride),
  next_cursor: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "PolicyOverrideListResponse" })
export type PolicyOverrideListResponse = typeof PolicyOverrideListResponse.Type

// ---------------------------------------------------------------------------
// Tool-call evaluation (reference §1.3 "Tool evaluation")
// ---------------------------------------------------------------------------

/** Rules of a tool-call evaluation, in the order they are emitted. */
export const TOOL_RULES = ["tool_policy", "provenance", "network_egress", "secrets", "policy_override"] as const
export const ToolRuleName = Schema.Literals(TOOL_RULES)
export type ToolRuleName = typeof ToolRuleName.Type

/** One rule of a tool-call evaluation. */
export const ToolRuleDecision = Schema.Struct({ rule: ToolRuleName, outcome: BundleDecision, detail: Schema.String })
export type ToolRuleDecision = typeof ToolRuleDecision.Type

/** An "approve always" override the caller may offer the operator (it passed the guardrail, guardrails.ts). */
export const SuggestedOverride = Schema.Struct({
  tool_id: Schema.String,
  pattern: Schema.String,
  workspace_id: Schema.optionalKey(Schema.String)
})
export type SuggestedOverride = typeof SuggestedOverride.Type

/** What `PolicyBundle.evaluateToolCall` returns. */
export const ToolCallEvaluation = Schema.Struct({
  decision: BundleDecision,
  rules: Schema.Array(ToolRuleDecision),
  applied_override_ids: Schema.Array(Schema.String),
  suggested_overrides: Schema.Array(SuggestedOverride),
  /** The snapshot evaluated against (absent only when a requested snapshot is missing). */
  policy_snapshot_id: Schema.optionalKey(Schema.String),
  sha256: Schema.optionalKey(Schema.String)
})
export type ToolCallEvaluation = typeof ToolCallEvaluation.Type
