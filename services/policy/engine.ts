/**
 * The policy engine: a pure, synchronous, stateless evaluation of a decoded
 * {@link PolicyCheckRequest} against the static guardrails.
 *
 * Contract: `spec/policy-check.md`, "POST /policy/check" evaluation rules 1-6
 * and "Limits". Detail strings, edge cases and money formatting follow the
 * original product's engine (reference 1.1) with our decisions:
 *
 * - an amount equal to the hard ceiling (50000) is NOT denied; only strictly
 *   above is; the ceiling is checked first, so a user limit above the ceiling
 *   is effectively capped;
 * - an amount equal to the user limit is allowed; a user limit of 0 allows 0 only;
 * - limits are plain minor-unit numbers, never converted per currency
 *   ("JPY 50000", "BHD 50.000", "USD 500.00").
 *
 * No Effect here: these functions are on the hot path (HTTP, planner). Rule
 * decisions whose detail never varies are preallocated and frozen.
 *
 * @module
 */
import type {
  ConnectorContext,
  LegalContext,
  Outcome,
  PiiContext,
  PolicyCheckRequest,
  PolicyDecision,
  RuleDecision,
  RuleName,
  SpendContext
} from "./schema.ts"

// ---------------------------------------------------------------------------
// Constants (spec "Limits"; reference 1.1)
// ---------------------------------------------------------------------------

/** Default user auto-approval limit: 100.00 currency units. */
export const DEFAULT_USER_LIMIT_MINOR_UNITS = 10_000
/** Hard spend ceiling: 500.00 currency units. Amounts strictly above are denied. */
export const HARD_CEILING_MINOR_UNITS = 50_000

/** Scopes already granted (reference 1.1 connector table). */
export const GRANTED_CONNECTOR_SCOPES: ReadonlySet<string> = new Set([
  "mcp://calendar",
  "mcp://crm",
  "mcp://email",
  "mcp://files",
  "mcp://support",
  "mcp://tasks"
])
/** Sensitive scopes that are always denied (reference 1.1 connector table). */
export const PROHIBITED_CONNECTOR_SCOPES: ReadonlySet<string> = new Set(["mcp://root", "mcp://secrets", "mcp://admin"])

// ---------------------------------------------------------------------------
// Money formatting
// ---------------------------------------------------------------------------

/**
 * ISO 4217 minor-unit exponent of a currency, looked up case-insensitively:
 * 0 for BIF CLP DJF GNF JPY KMF KRW MGA PYG RWF UGX VND VUV XAF XOF XPF,
 * 3 for BHD IQD JOD KWD LYD OMR TND, and 2 for everything else (including
 * unknown or garbage codes).
 */
export const minorUnitExponent = (currency: string): 0 | 2 | 3 => exponentOfUpper(currency.toUpperCase())

const exponentOfUpper = (upper: string): 0 | 2 | 3 => {
  switch (upper) {
    case "BIF":
    case "CLP":
    case "DJF":
    case "GNF":
    case "JPY":
    case "KMF":
    case "KRW":
    case "MGA":
    case "PYG":
    case "RWF":
    case "UGX":
    case "VND":
    case "VUV":
    case "XAF":
    case "XOF":
    case "XPF":
      return 0
    case "BHD":
    case "IQD":
    case "JOD":
    case "KWD":
    case "LYD":
    case "OMR":
    case "TND":
      return 3
    default:
      return 2
  }
}

/**
 * Formats an amount in minor units as `"<CURRENCY> <major>"`, with the
 * currency uppercased and as many decimals as its minor-unit exponent:
 * `formatMoney(8750, "eur") === "EUR 87.50"`, `formatMoney(1234, "JPY") === "JPY 1234"`,
 * `formatMoney(12345, "BHD") === "BHD 12.345"`.
 *
 * Safe integers are formatted with exact string arithmetic (no floating-point
 * division, so very large amounts stay exact); any other number falls back to
 * `(minor / 10^exponent).toFixed(exponent)`.
 */
export const formatMoney = (minor: number, currency: string): string => {
  const upper = currency.toUpperCase()
  const exponent = exponentOfUpper(upper)
  if (!Number.isSafeInteger(minor)) return `${upper} ${(minor / 10 ** exponent).toFixed(exponent)}`
  const sign = minor < 0 ? "-" : ""
  const digits = String(minor < 0 ? -minor : minor)
  if (exponent === 0) return `${upper} ${sign}${digits}`
  const padded = digits.length > exponent ? digits : digits.padStart(exponent + 1, "0")
  const cut = padded.length - exponent
  return `${upper} ${sign}${padded.slice(0, cut)}.${padded.slice(cut)}`
}

// ---------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------

const decision = (rule: RuleName, outcome: Outcome, detail: string): RuleDecision => ({
  rule,
  outcome,
  detail
})

const frozen = (rule: RuleName, outcome: Outcome, detail: string): RuleDecision =>
  Object.freeze(decision(rule, outcome, detail))

const SPEND_MISSING = frozen("spend_limit", "require_approval", "Spend context missing; escalate for confirmation.")
const PII_MISSING = frozen("pii_guardrail", "require_approval", "PII context missing; escalate to request confirmation.")
const PII_NONE = frozen("pii_guardrail", "allow", "No PII categories declared.")
const LEGAL_MISSING = frozen("legal_compliance", "require_approval", "Legal context missing; escalate for review.")
const LEGAL_NONE = frozen("legal_compliance", "allow", "No legal flags raised.")
const CONNECTOR_BLANK = frozen("connector_scope", "require_approval", "Connector scope is blank; escalate for consent.")

/**
 * Spend rule (`spend_limit`), checked in this order:
 * absent → require_approval; amount > ceiling → deny; amount > user limit
 * (default 10000) → require_approval; otherwise allow.
 */
export const evaluateSpend = (spend: SpendContext | undefined): RuleDecision => {
  if (spend === undefined) return SPEND_MISSING
  const amount = spend.amount_minor_units
  const currency = spend.currency
  if (amount > HARD_CEILING_MINOR_UNITS) {
    return decision(
      "spend_limit",
      "deny",
      `Amount ${formatMoney(amount, currency)} exceeds hard limit ${formatMoney(HARD_CEILING_MINOR_UNITS, currency)}.`
    )
  }
  const limit = spend.user_limit_minor_units ?? DEFAULT_USER_LIMIT_MINOR_UNITS
  if (amount > limit) {
    return decision(
      "spend_limit",
      "require_approval",
      `Amount ${formatMoney(amount, currency)} exceeds user limit ${formatMoney(limit, currency)}.`
    )
  }
  return decision(
    "spend_limit",
    "allow",
    `Amount ${formatMoney(amount, currency)} within auto-approval limit ${formatMoney(limit, currency)}.`
  )
}

/**
 * PII rule (`pii_guardrail`): absent → require_approval; `[]` → allow;
 * biometric/government_id → deny; financial/health → require_approval;
 * otherwise allow. The detail lists all categories in request order.
 */
export const evaluatePii = (pii: PiiContext | undefined): RuleDecision => {
  if (pii === undefined) return PII_MISSING
  const categories = pii.categories
  if (categories.length === 0) return PII_NONE
  let sensitive = false
  for (const category of categories) {
    if (category === "biometric" || category === "government_id") {
      return decision("pii_guardrail", "deny", `Detected protected PII categories: ${categories.join(", ")}.`)
    }
    if (category === "financial" || category === "health") sensitive = true
  }
  return sensitive
    ? decision(
      "pii_guardrail",
      "require_approval",
      `Detected sensitive PII categories requiring consent: ${categories.join(", ")}.`
    )
    : decision("pii_guardrail", "allow", `PII categories acceptable for automated handling: ${categories.join(", ")}.`)
}

/**
 * Legal rule (`legal_compliance`): absent → require_approval; `[]` → allow;
 * prohibited_content → deny; requires_review/export_controlled/terms_unknown
 * → require_approval; otherwise (only `other`) allow.
 */
export const evaluateLegal = (legal: LegalContext | undefined): RuleDecision => {
  if (legal === undefined) return LEGAL_MISSING
  const flags = legal.flags
  if (flags.length === 0) return LEGAL_NONE
  let review = false
  for (const flag of flags) {
    if (flag === "prohibited_content") {
      return decision("legal_compliance", "deny", `Prohibited legal flags present: ${flags.join(", ")}.`)
    }
    if (flag !== "other") review = true
  }
  return review
    ? decision("legal_compliance", "require_approval", `Legal flags require human review: ${flags.join(", ")}.`)
    : decision("legal_compliance", "allow", `Legal flags acceptable: ${flags.join(", ")}.`)
}

/**
 * Connector rule (`connector_scope`, policy-check.md "Evaluation rules" 4):
 * returns `undefined` (rule skipped, no entry) when `connector.scope` is
 * omitted, whether or not the `connector` section is present. The scope is
 * trimmed and matched exactly and case-sensitively: root/secrets/admin →
 * deny; calendar/crm/email/files/support/tasks → allow; any other scope
 * string, blank included ("any other scope string gets require_approval") →
 * require_approval (ask for consent).
 */
export const evaluateConnectorScope = (connector: ConnectorContext | undefined): RuleDecision | undefined => {
  if (connector === undefined || connector.scope === undefined) return undefined
  // Decoding already trims; trimming again keeps direct (library) callers safe
  // and returns the same string when there is nothing to trim.
  const scope = connector.scope.trim()
  if (scope === "") return CONNECTOR_BLANK
  if (PROHIBITED_CONNECTOR_SCOPES.has(scope)) {
    return decision("connector_scope", "deny", `Connector scope ${scope} prohibited by policy.`)
  }
  if (GRANTED_CONNECTOR_SCOPES.has(scope)) {
    return decision("connector_scope", "allow", `Connector scope ${scope} already granted.`)
  }
  return decision("connector_scope", "require_approval", `Consent required before activating connector scope ${scope}.`)
}

// ---------------------------------------------------------------------------
// Overall decision
// ---------------------------------------------------------------------------

const severity = (outcome: Outcome): 0 | 1 | 2 =>
  outcome === "deny" ? 2 : outcome === "require_approval" ? 1 : 0

const SEVERITY_ORDER: ReadonlyArray<Outcome> = ["allow", "require_approval", "deny"]

/**
 * Overall outcome (spec rule 6): deny if any outcome is deny, otherwise
 * require_approval if any is require_approval, otherwise allow (also for no outcomes).
 */
export const overallDecision = (outcomes: Iterable<Outcome>): Outcome => {
  let worst: 0 | 1 | 2 = 0
  for (const outcome of outcomes) {
    const s = severity(outcome)
    if (s === 2) return "deny"
    if (s > worst) worst = s
  }
  return SEVERITY_ORDER[worst]
}

/**
 * Evaluates all rules independently and derives the overall decision.
 * Rules appear in the order spend_limit, pii_guardrail, legal_compliance,
 * then connector_scope only when the request has a `connector.scope`.
 */
export const evaluatePolicy = (request: PolicyCheckRequest): PolicyDecision => {
  const spend = evaluateSpend(request.spend)
  const pii = evaluatePii(request.pii)
  const legal = evaluateLegal(request.legal)
  const connector = evaluateConnectorScope(request.connector)
  let worst = Math.max(severity(spend.outcome), severity(pii.outcome), severity(legal.outcome))
  if (connector === undefined) {
    return { decision: SEVERITY_ORDER[worst], rules: [spend, pii, legal] }
  }
  worst = Math.max(worst, severity(connector.outcome))
  return { decision: SEVERITY_ORDER[worst], rules: [spend, pii, legal, connector] }
}
