/**
 * Wire contract of the policy evaluation (`POST /policy/check`).
 *
 * Source of truth: `spec/policy-check.md`, sections "Resources and their
 * fields" (PolicyCheckRequest, PolicyDecision, RuleDecision) and "Endpoints /
 * POST /policy/check" (rule names, outcomes, order). Where the spec says
 * "not shown", the behaviour follows the original product's request
 * validation (reference 1.2) with the decisions recorded in
 * docs/decisions.md:
 *
 * - every section is optional; a present section must satisfy its schema;
 * - unknown keys are ignored (stripped), never rejected;
 * - amounts are non-negative safe integers (no floats, no numeric strings);
 * - `spend.currency` is required with `spend` and must be exactly three ASCII
 *   letters (case-insensitive; it is kept as sent and uppercased for display);
 * - unknown `pii.categories` / `legal.flags` values are invalid; an absent
 *   list means `[]` (`pii: {}` is "no categories declared");
 * - `connector.scope` is trimmed on decode.
 *
 * The annotations (`title`, `description`, `examples`, `expected`) feed the
 * OpenAPI document and the decoder's error messages (`expected` is what
 * `makeDecoder` prints after "expected ..."). Input-side enums deliberately
 * carry no `identifier`: Effect's union issue message prefers the identifier
 * over the `expected` annotation, and we want "expected one of a, b, c".
 *
 * @module
 */
import { Effect, Schema, SchemaTransformation } from "effect"

// ---------------------------------------------------------------------------
// Enumerations
// ---------------------------------------------------------------------------

/** All rule names, in evaluation/response order (spec: "Entries appear in the order ..."). */
export const RULE_NAMES = ["spend_limit", "pii_guardrail", "legal_compliance", "connector_scope"] as const

/** Name of one evaluated rule (spec: RuleDecision.rule). */
export const RuleName = Schema.Literals(RULE_NAMES).annotate({
  identifier: "RuleName",
  title: "Rule name",
  description: "Policy rule that produced the decision: spend_limit, pii_guardrail, legal_compliance or connector_scope."
})
export type RuleName = typeof RuleName.Type

/** Possible outcomes, from least to most severe (spec: "Overall decision"). */
export const OUTCOMES = ["allow", "require_approval", "deny"] as const

/** Outcome of one rule or of the whole evaluation (spec: PolicyDecision.decision, RuleDecision.outcome). */
export const Outcome = Schema.Literals(OUTCOMES).annotate({
  identifier: "Outcome",
  title: "Outcome",
  description:
    "allow: may proceed automatically; require_approval: ask the user/operator first; deny: must not proceed."
})
export type Outcome = typeof Outcome.Type

/** Personal-data categories a proposed action touches (spec: pii.categories allowed values). */
export const PII_CATEGORIES = [
  "basic_contact",
  "location",
  "financial",
  "health",
  "biometric",
  "government_id",
  "other"
] as const

/** One personal-data category. Unknown values are rejected (reference 1.2). */
export const PiiCategory = Schema.Literals(PII_CATEGORIES).annotate({
  title: "PII category",
  description:
    "biometric and government_id are denied; financial and health require approval; basic_contact, location and other are allowed.",
  expected: `one of ${PII_CATEGORIES.join(", ")}`
})
export type PiiCategory = typeof PiiCategory.Type

/** Legal flags raised for a proposed action (spec: legal.flags allowed values). */
export const LEGAL_FLAGS = [
  "prohibited_content",
  "requires_review",
  "terms_unknown",
  "export_controlled",
  "other"
] as const

/** One legal flag. Unknown values are rejected (reference 1.2). */
export const LegalFlag = Schema.Literals(LEGAL_FLAGS).annotate({
  title: "Legal flag",
  description:
    "prohibited_content is denied; requires_review, terms_unknown and export_controlled require approval; other is allowed.",
  expected: `one of ${LEGAL_FLAGS.join(", ")}`
})
export type LegalFlag = typeof LegalFlag.Type

// ---------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------

const NON_NEGATIVE_INTEGER = "a non-negative integer"

/**
 * An amount in currency minor units: a non-negative safe integer.
 * Negative numbers, fractions and numeric strings are invalid (reference 1.2).
 * Both checks share one `expected` text so every failure reads the same.
 */
export const MinorUnits = Schema.Number.check(
  Schema.isInt({ expected: NON_NEGATIVE_INTEGER }),
  Schema.isGreaterThanOrEqualTo(0, { expected: NON_NEGATIVE_INTEGER })
).annotate({
  title: "Minor units",
  description: "Amount in currency minor units (non-negative integer).",
  expected: NON_NEGATIVE_INTEGER
})
export type MinorUnits = typeof MinorUnits.Type

/**
 * A currency code "in shape": exactly three ASCII letters, any case
 * (spec: "Three-letter currency code in shape"; "Currency code validation: not
 * shown" → our decision: shape only, no ISO 4217 membership check).
 */
export const CurrencyCode = Schema.String.check(
  Schema.isPattern(/^[A-Za-z]{3}$/, { expected: "a three-letter currency code" })
).annotate({
  title: "Currency code",
  description:
    "Three ASCII letters, case-insensitive (e.g. EUR, usd). Only the shape is checked; unknown codes format with 2 decimals.",
  examples: ["EUR", "USD", "JPY", "BHD"]
})
export type CurrencyCode = typeof CurrencyCode.Type

/**
 * A string that is trimmed on decode. Same as `Schema.Trim`, minus its
 * "a string that will be decoded as a trimmed string" wording in errors.
 */
const TrimmedString: Schema.decodeTo<Schema.Trimmed, Schema.String> = Schema.String.pipe(
  Schema.decodeTo(Schema.Trimmed, SchemaTransformation.trim())
)

// ---------------------------------------------------------------------------
// PolicyCheckRequest (spec: "PolicyCheckRequest (JSON object)")
// ---------------------------------------------------------------------------

/** `spend` section (spec: "spend:" table). */
export const SpendContext = Schema.Struct({
  amount_minor_units: MinorUnits.annotateKey({
    description: "Amount of the proposed action in currency minor units (non-negative integer)."
  }),
  currency: CurrencyCode.annotateKey({
    description: "Currency of the amount: three ASCII letters, case-insensitive (uppercased in details)."
  }),
  user_limit_minor_units: Schema.optionalKey(MinorUnits).annotateKey({
    description:
      "User auto-approval limit in minor units. Defaults to 10000 (100.00 currency units). The hard ceiling of 50000 minor units applies regardless."
  })
}).annotate({
  identifier: "SpendContext",
  title: "Spend context",
  description: "Money the proposed action would spend."
})
export type SpendContext = typeof SpendContext.Type

/** `pii` section (spec: "pii:" table). `{}` decodes to `{ categories: [] }`. */
export const PiiContext = Schema.Struct({
  categories: Schema.Array(PiiCategory).pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))).annotateKey({
    description: "Personal-data categories the action touches, in any order. Defaults to [] (none declared)."
  })
}).annotate({
  identifier: "PiiContext",
  title: "PII context",
  description: "Personal data the proposed action handles."
})
export type PiiContext = typeof PiiContext.Type

/** `legal` section (spec: "legal:" table). `{}` decodes to `{ flags: [] }`. */
export const LegalContext = Schema.Struct({
  flags: Schema.Array(LegalFlag).pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))).annotateKey({
    description: "Legal flags raised for the action. Defaults to [] (none raised)."
  })
}).annotate({
  identifier: "LegalContext",
  title: "Legal context",
  description: "Legal flags raised for the proposed action."
})
export type LegalContext = typeof LegalContext.Type

/** `connector` section (spec: "connector:" table). The scope is trimmed on decode. */
export const ConnectorContext = Schema.Struct({
  scope: Schema.optionalKey(TrimmedString).annotateKey({
    description:
      "Connector identifier that needs consent before activation, of the form mcp://<name>. Trimmed; matched exactly and case-sensitively. Omitted: the connector_scope rule is skipped; blank: requires approval.",
    examples: ["mcp://calendar"]
  })
}).annotate({
  identifier: "ConnectorContext",
  title: "Connector context",
  description: "Connector the proposed action wants to activate. When the section or its scope is absent the connector_scope rule is skipped."
})
export type ConnectorContext = typeof ConnectorContext.Type

/**
 * Body of `POST /policy/check` (spec: "PolicyCheckRequest (JSON object)").
 * All sections are optional; a missing section makes its rule require
 * approval (spec rule 5), except `connector`, whose rule is then skipped.
 */
export const PolicyCheckRequest = Schema.Struct({
  request_id: Schema.optionalKey(Schema.String).annotateKey({
    description: "Caller-chosen identifier. Not echoed in the decision."
  }),
  spend: Schema.optionalKey(SpendContext),
  pii: Schema.optionalKey(PiiContext),
  legal: Schema.optionalKey(LegalContext),
  connector: Schema.optionalKey(ConnectorContext)
}).annotate({
  identifier: "PolicyCheckRequest",
  title: "Policy check request",
  description:
    "A proposed action to judge against the static guardrails. Every section is optional; unknown keys are ignored.",
  expected: "a JSON object",
  examples: [{
    spend: { amount_minor_units: 8750, currency: "EUR" },
    pii: { categories: ["basic_contact"] },
    legal: { flags: [] },
    connector: { scope: "mcp://calendar" }
  }]
})
/** Decoded request, as consumed by the engine and `PolicyService.check`. */
export type PolicyCheckRequest = typeof PolicyCheckRequest.Type
/** Request as sent over the wire (e.g. `pii.categories` may be absent). */
export type PolicyCheckRequestEncoded = typeof PolicyCheckRequest.Encoded

// ---------------------------------------------------------------------------
// PolicyDecision (spec: "PolicyDecision (JSON object)")
// ---------------------------------------------------------------------------

/** Decision of one rule (spec: "RuleDecision"). */
export const RuleDecision = Schema.Struct({
  rule: RuleName,
  outcome: Outcome,
  detail: Schema.String.annotateKey({
    description:
      "Human-readable explanation. Names the amount and limit for spend, the categories for PII, the flags for legal and the scope for the connector."
  })
}).annotate({
  identifier: "RuleDecision",
  title: "Rule decision",
  description: "Outcome of one policy rule."
})
export type RuleDecision = typeof RuleDecision.Type

/** Response of `POST /policy/check` (spec: "PolicyDecision (JSON object)"). */
export const PolicyDecision = Schema.Struct({
  decision: Outcome.annotateKey({
    description: "Overall outcome: deny if any rule denies, else require_approval if any rule requires it, else allow."
  }),
  rules: Schema.Array(RuleDecision).annotateKey({
    description:
      "One entry per evaluated rule, in the order spend_limit, pii_guardrail, legal_compliance, connector_scope (the last only when a connector section was sent)."
  })
}).annotate({
  identifier: "PolicyDecision",
  title: "Policy decision",
  description: "Per-rule decisions and the overall decision.",
  examples: [{
    decision: "allow",
    rules: [
      { rule: "spend_limit", outcome: "allow", detail: "Amount EUR 87.50 within auto-approval limit EUR 100.00." },
      {
        rule: "pii_guardrail",
        outcome: "allow",
        detail: "PII categories acceptable for automated handling: basic_contact."
      },
      { rule: "legal_compliance", outcome: "allow", detail: "No legal flags raised." },
      { rule: "connector_scope", outcome: "allow", detail: "Connector scope mcp://calendar already granted." }
    ]
  }]
})
export type PolicyDecision = typeof PolicyDecision.Type
