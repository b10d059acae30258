/**
 * Rule table of the policy engine: spec `policy-check.md` ("POST /policy/check",
 * rules 1-6, "Limits"), reference 1.1 (detail strings, edge cases, money
 * formatting) and 9.2 (original test cases), with our decisions on the
 * ceiling / limit edges.
 */
import { describe, expect, it } from "@effect/vitest"
import type { PolicyCheckRequest } from "../../../services/policy/schema.ts"
import {
  DEFAULT_USER_LIMIT_MINOR_UNITS,
  evaluateConnectorScope,
  evaluateLegal,
  evaluatePii,
  evaluatePolicy,
  evaluateSpend,
  formatMoney,
  HARD_CEILING_MINOR_UNITS,
  minorUnitExponent,
  overallDecision
} from "../../../services/policy/engine.ts"

describe("constants", () => {
  it("match the spec limits", () => {
    expect(DEFAULT_USER_LIMIT_MINOR_UNITS).toBe(10_000)
    expect(HARD_CEILING_MINOR_UNITS).toBe(50_000)
  })
})

describe("formatMoney / minorUnitExponent", () => {
  it.each([
    // reference 9.2 #14, #15
    [1234, "JPY", "JPY 1234"],
    [12345, "BHD", "BHD 12.345"],
    // reference 1.1 examples and docs sample
    [8750, "EUR", "EUR 87.50"],
    [10_000, "EUR", "EUR 100.00"],
    [50_000, "JPY", "JPY 50000"],
    [50_000, "BHD", "BHD 50.000"],
    [50_000, "USD", "USD 500.00"],
    // lowercase is uppercased
    [8750, "eur", "EUR 87.50"],
    [1234, "jpy", "JPY 1234"],
    [12345, "bhd", "BHD 12.345"],
    // unknown code: 2 decimals
    [1234, "XYZ", "XYZ 12.34"],
    [1234, "abc", "ABC 12.34"],
    // small and zero amounts are zero-padded
    [0, "USD", "USD 0.00"],
    [5, "USD", "USD 0.05"],
    [5, "KWD", "KWD 0.005"],
    [50, "OMR", "OMR 0.050"],
    [0, "JPY", "JPY 0"],
    // exact even beyond float precision of minor / 100
    [Number.MAX_SAFE_INTEGER, "USD", "USD 90071992547409.91"]
  ] as const)("formatMoney(%d, %s) = %s", (minor, currency, expected) => {
    expect(formatMoney(minor, currency)).toBe(expected)
  })

  it.each(["BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF"])(
    "%s has exponent 0 (any case)",
    (code) => {
      expect(minorUnitExponent(code)).toBe(0)
      expect(minorUnitExponent(code.toLowerCase())).toBe(0)
    }
  )

  it.each(["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"])("%s has exponent 3 (any case)", (code) => {
    expect(minorUnitExponent(code)).toBe(3)
    expect(minorUnitExponent(code.toLowerCase())).toBe(3)
  })

  it.each(["EUR", "USD", "GBP", "XYZ", "eur", "", "EURO"])("%j has exponent 2", (code) => {
    expect(minorUnitExponent(code)).toBe(2)
  })
})

describe("spend_limit", () => {
  it("absent spend requires approval", () => {
    expect(evaluateSpend(undefined)).toEqual({
      rule: "spend_limit",
      outcome: "require_approval",
      detail: "Spend context missing; escalate for confirmation."
    })
  })

  it.each([
    // reference 9.2 #1-#3
    [{ amount_minor_units: 8000, currency: "EUR" }, "allow", "Amount EUR 80.00 within auto-approval limit EUR 100.00."],
    [
      { amount_minor_units: 15_000, currency: "EUR", user_limit_minor_units: 12_000 },
      "require_approval",
      "Amount EUR 150.00 exceeds user limit EUR 120.00."
    ],
    [
      { amount_minor_units: 60_000, currency: "EUR", user_limit_minor_units: 80_000 },
      "deny",
      "Amount EUR 600.00 exceeds hard limit EUR 500.00."
    ],
    // above the ceiling with the default limit
    [{ amount_minor_units: 60_000, currency: "USD" }, "deny", "Amount USD 600.00 exceeds hard limit USD 500.00."],
    // amount == ceiling is NOT denied; with the default limit it needs approval
    [{ amount_minor_units: 50_000, currency: "EUR" }, "require_approval", "Amount EUR 500.00 exceeds user limit EUR 100.00."],
    // amount == ceiling with a limit above the ceiling is allowed
    [
      { amount_minor_units: 50_000, currency: "EUR", user_limit_minor_units: 80_000 },
      "allow",
      "Amount EUR 500.00 within auto-approval limit EUR 800.00."
    ],
    // one above the ceiling is denied even with a higher limit (limit is capped)
    [
      { amount_minor_units: 50_001, currency: "EUR", user_limit_minor_units: 80_000 },
      "deny",
      "Amount EUR 500.01 exceeds hard limit EUR 500.00."
    ],
    // amount == user limit allows
    [
      { amount_minor_units: 12_000, currency: "EUR", user_limit_minor_units: 12_000 },
      "allow",
      "Amount EUR 120.00 within auto-approval limit EUR 120.00."
    ],
    // amount == default limit allows; one above needs approval ("exceeds user limit" even for the default)
    [{ amount_minor_units: 10_000, currency: "EUR" }, "allow", "Amount EUR 100.00 within auto-approval limit EUR 100.00."],
    [{ amount_minor_units: 10_001, currency: "EUR" }, "require_approval", "Amount EUR 100.01 exceeds user limit EUR 100.00."],
    // user limit 0: only 0 is allowed
    [
      { amount_minor_units: 0, currency: "EUR", user_limit_minor_units: 0 },
      "allow",
      "Amount EUR 0.00 within auto-approval limit EUR 0.00."
    ],
    [
      { amount_minor_units: 1, currency: "EUR", user_limit_minor_units: 0 },
      "require_approval",
      "Amount EUR 0.01 exceeds user limit EUR 0.00."
    ],
    // limits are plain minor units, not converted per currency
    [{ amount_minor_units: 60_000, currency: "JPY" }, "deny", "Amount JPY 60000 exceeds hard limit JPY 50000."],
    [{ amount_minor_units: 9_999, currency: "JPY" }, "allow", "Amount JPY 9999 within auto-approval limit JPY 10000."],
    [{ amount_minor_units: 12_345, currency: "BHD" }, "require_approval", "Amount BHD 12.345 exceeds user limit BHD 10.000."],
    [{ amount_minor_units: 50_001, currency: "BHD" }, "deny", "Amount BHD 50.001 exceeds hard limit BHD 50.000."],
    // unknown currency: 2 decimals; lowercase is uppercased
    [{ amount_minor_units: 1234, currency: "XYZ" }, "allow", "Amount XYZ 12.34 within auto-approval limit XYZ 100.00."],
    [{ amount_minor_units: 8750, currency: "eur" }, "allow", "Amount EUR 87.50 within auto-approval limit EUR 100.00."],
    [{ amount_minor_units: 1234, currency: "jpy" }, "allow", "Amount JPY 1234 within auto-approval limit JPY 10000."]
  ] as const)("%j → %s", (spend, outcome, detail) => {
    expect(evaluateSpend(spend)).toEqual({ rule: "spend_limit", outcome, detail })
  })
})

describe("pii_guardrail", () => {
  it("absent pii requires approval", () => {
    expect(evaluatePii(undefined)).toEqual({
      rule: "pii_guardrail",
      outcome: "require_approval",
      detail: "PII context missing; escalate to request confirmation."
    })
  })

  it.each([
    [[], "allow", "No PII categories declared."],
    // reference 9.2 #4-#6
    [["basic_contact"], "allow", "PII categories acceptable for automated handling: basic_contact."],
    [["financial"], "require_approval", "Detected sensitive PII categories requiring consent: financial."],
    [["biometric"], "deny", "Detected protected PII categories: biometric."],
    [["government_id"], "deny", "Detected protected PII categories: government_id."],
    [["health"], "require_approval", "Detected sensitive PII categories requiring consent: health."],
    [["location"], "allow", "PII categories acceptable for automated handling: location."],
    [["other"], "allow", "PII categories acceptable for automated handling: other."],
    [
      ["basic_contact", "location", "other"],
      "allow",
      "PII categories acceptable for automated handling: basic_contact, location, other."
    ],
    // the detail lists ALL categories in request order
    [
      ["location", "health", "basic_contact"],
      "require_approval",
      "Detected sensitive PII categories requiring consent: location, health, basic_contact."
    ],
    [
      ["basic_contact", "financial", "government_id", "health"],
      "deny",
      "Detected protected PII categories: basic_contact, financial, government_id, health."
    ]
  ] as const)("%j → %s", (categories, outcome, detail) => {
    expect(evaluatePii({ categories })).toEqual({ rule: "pii_guardrail", outcome, detail })
  })
})

describe("legal_compliance", () => {
  it("absent legal requires approval", () => {
    expect(evaluateLegal(undefined)).toEqual({
      rule: "legal_compliance",
      outcome: "require_approval",
      detail: "Legal context missing; escalate for review."
    })
  })

  it.each([
    // reference 9.2 #7-#9
    [[], "allow", "No legal flags raised."],
    [["requires_review"], "require_approval", "Legal flags require human review: requires_review."],
    [["prohibited_content"], "deny", "Prohibited legal flags present: prohibited_content."],
    [["export_controlled"], "require_approval", "Legal flags require human review: export_controlled."],
    [["terms_unknown"], "require_approval", "Legal flags require human review: terms_unknown."],
    [["other"], "allow", "Legal flags acceptable: other."],
    [["other", "terms_unknown"], "require_approval", "Legal flags require human review: other, terms_unknown."],
    [
      ["requires_review", "prohibited_content", "other"],
      "deny",
      "Prohibited legal flags present: requires_review, prohibited_content, other."
    ]
  ] as const)("%j → %s", (flags, outcome, detail) => {
    expect(evaluateLegal({ flags })).toEqual({ rule: "legal_compliance", outcome, detail })
  })
})

describe("connector_scope", () => {
  it("absent connector skips the rule", () => {
    expect(evaluateConnectorScope(undefined)).toBeUndefined()
  })

  it("connector without a scope skips the rule (policy-check.md rule 4: scope omitted)", () => {
    expect(evaluateConnectorScope({})).toBeUndefined()
    const decision = evaluatePolicy({ spend: { amount_minor_units: 1, currency: "EUR" }, pii: { categories: [] }, legal: { flags: [] }, connector: {} })
    expect(decision).toEqual({
      decision: "allow",
      rules: [
        { rule: "spend_limit", outcome: "allow", detail: "Amount EUR 0.01 within auto-approval limit EUR 100.00." },
        { rule: "pii_guardrail", outcome: "allow", detail: "No PII categories declared." },
        { rule: "legal_compliance", outcome: "allow", detail: "No legal flags raised." }
      ]
    })
  })

  it.each([
    // reference 9.2 #10-#13
    [{ scope: "mcp://calendar" }, "allow", "Connector scope mcp://calendar already granted."],
    [{ scope: "mcp://analytics" }, "require_approval", "Consent required before activating connector scope mcp://analytics."],
    [{ scope: "mcp://secrets" }, "deny", "Connector scope mcp://secrets prohibited by policy."],
    // every granted scope
    [{ scope: "mcp://crm" }, "allow", "Connector scope mcp://crm already granted."],
    [{ scope: "mcp://email" }, "allow", "Connector scope mcp://email already granted."],
    [{ scope: "mcp://files" }, "allow", "Connector scope mcp://files already granted."],
    [{ scope: "mcp://support" }, "allow", "Connector scope mcp://support already granted."],
    [{ scope: "mcp://tasks" }, "allow", "Connector scope mcp://tasks already granted."],
    // every prohibited scope
    [{ scope: "mcp://root" }, "deny", "Connector scope mcp://root prohibited by policy."],
    [{ scope: "mcp://admin" }, "deny", "Connector scope mcp://admin prohibited by policy."],
    // a blank scope is still a scope ("any other scope string gets require_approval")
    [{ scope: "" }, "require_approval", "Connector scope is blank; escalate for consent."],
    [{ scope: "   \t" }, "require_approval", "Connector scope is blank; escalate for consent."],
    // trimmed, then matched exactly and case-sensitively
    [{ scope: "  mcp://calendar \n" }, "allow", "Connector scope mcp://calendar already granted."],
    [{ scope: "MCP://calendar" }, "require_approval", "Consent required before activating connector scope MCP://calendar."],
    [{ scope: "mcp://Secrets" }, "require_approval", "Consent required before activating connector scope mcp://Secrets."],
    [{ scope: "calendar" }, "require_approval", "Consent required before activating connector scope calendar."]
  ] as const)("%j → %s", (connector, outcome, detail) => {
    expect(evaluateConnectorScope(connector)).toEqual({ rule: "connector_scope", outcome, detail })
  })
})

describe("overallDecision", () => {
  it.each([
    [[], "allow"],
    [["allow"], "allow"],
    [["allow", "allow", "allow"], "allow"],
    [["allow", "require_approval", "allow"], "require_approval"],
    [["require_approval", "deny", "allow"], "deny"],
    [["deny", "require_approval"], "deny"],
    [["allow", "deny"], "deny"]
  ] as const)("%j → %s", (outcomes, expected) => {
    expect(overallDecision(outcomes)).toBe(expected)
  })
})

describe("evaluatePolicy", () => {
  it("empty request → require_approval with the three 'missing' rules and no connector rule", () => {
    expect(evaluatePolicy({})).toEqual({
      decision: "require_approval",
      rules: [
        { rule: "spend_limit", outcome: "require_approval", detail: "Spend context missing; escalate for confirmation." },
        {
          rule: "pii_guardrail",
          outcome: "require_approval",
          detail: "PII context missing; escalate to request confirmation."
        },
        { rule: "legal_compliance", outcome: "require_approval", detail: "Legal context missing; escalate for review." }
      ]
    })
  })

  it("docs sample (docs/policy_service.md) → allow with the four documented details", () => {
    expect(evaluatePolicy({
      request_id: "sample",
      spend: { amount_minor_units: 8750, currency: "EUR" },
      pii: { categories: ["basic_contact"] },
      legal: { flags: [] },
      connector: { scope: "mcp://calendar" }
    })).toEqual({
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
    })
  })

  // reference 9.2 HTTP cases (T/integration/policy.test.ts), on decoded bodies
  it.each([
    [
      { spend: { amount_minor_units: 5000, currency: "USD" }, pii: { categories: [] }, legal: { flags: [] } },
      "allow"
    ],
    [{ spend: { amount_minor_units: 60_000, currency: "USD" } }, "deny"],
    [{ spend: { amount_minor_units: 15_000, currency: "USD" } }, "require_approval"],
    [{ pii: { categories: ["biometric"] } }, "deny"]
  ] as const)("%j → %s", (request, decision) => {
    expect(evaluatePolicy(request as PolicyCheckRequest).decision).toBe(decision)
  })

  it("connector present adds the connector_scope rule last and it counts towards the decision", () => {
    const all = {
      spend: { amount_minor_units: 100, currency: "EUR" },
      pii: { categories: [] },
      legal: { flags: [] }
    } as const
    const denied = evaluatePolicy({ ...all, connector: { scope: "mcp://root" } })
    expect(denied.decision).toBe("deny")
    expect(denied.rules.map((r) => r.rule)).toEqual(["spend_limit", "pii_guardrail", "legal_compliance", "connector_scope"])
    expect(evaluatePolicy({ ...all, connector: {} }).decision).toBe("allow")
    expect(evaluatePolicy({ ...all, connector: { scope: " " } }).decision).toBe("require_approval")
    expect(evaluatePolicy({ ...all, connector: { scope: "MCP://calendar" } }).decision).toBe("require_approval")
    expect(evaluatePolicy(all).decision).toBe("allow")
    expect(evaluatePolicy(all).rules).toHaveLength(3)
  })

  it("all rules are evaluated independently (a deny does not short-circuit the others)", () => {
    const result = evaluatePolicy({
      spend: { amount_minor_units: 60_000, currency: "EUR" },
      pii: { categories: ["health"] },
      legal: { flags: ["other"] },
      connector: { scope: "mcp://crm" }
    })
    expect(result.decision).toBe("deny")
    expect(result.rules.map((r) => r.outcome)).toEqual(["deny", "require_approval", "allow", "allow"])
  })
})
