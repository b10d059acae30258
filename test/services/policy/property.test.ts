/**
 * Properties of the policy evaluation over requests generated from the
 * contract schema (spec `policy-check.md`: "Entries appear in the order
 * spend_limit, pii_guardrail, legal_compliance, connector_scope", rule 6
 * "Overall decision", "Limits").
 */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { makeDecoder } from "../../../services/shared/decode.ts"
import {
  CurrencyCode,
  type Outcome,
  PolicyCheckRequest,
  PolicyDecision,
  type RuleName
} from "../../../services/policy/schema.ts"
import {
  evaluateConnectorScope,
  evaluateLegal,
  evaluatePii,
  evaluatePolicy,
  evaluateSpend,
  formatMoney
} from "../../../services/policy/engine.ts"

const SEVERITY: ReadonlyArray<Outcome> = ["allow", "require_approval", "deny"]
const isPolicyDecision = Schema.is(PolicyDecision)
const decodePolicyCheck = makeDecoder(PolicyCheckRequest)
const RUNS = { arbitrary: { runs: 500 } }

/** The invariants every evaluation must satisfy. */
const checkInvariants = (request: PolicyCheckRequest): void => {
  const result = evaluatePolicy(request)
  // the output is a valid PolicyDecision
  expect(isPolicyDecision(result)).toBe(true)
  // rules in the fixed order; connector_scope iff connector.scope is present (policy-check.md rule 4)
  const expectedRules: Array<RuleName> = ["spend_limit", "pii_guardrail", "legal_compliance"]
  if (request.connector?.scope !== undefined) expectedRules.push("connector_scope")
  expect(result.rules.map((r) => r.rule)).toEqual(expectedRules)
  // overall decision = the most severe rule outcome
  const worst = Math.max(...result.rules.map((r) => SEVERITY.indexOf(r.outcome)))
  expect(result.decision).toBe(SEVERITY[worst])
  // each rule is evaluated independently from its own section
  expect(result.rules[0]).toEqual(evaluateSpend(request.spend))
  expect(result.rules[1]).toEqual(evaluatePii(request.pii))
  expect(result.rules[2]).toEqual(evaluateLegal(request.legal))
  if (request.connector?.scope !== undefined) expect(result.rules[3]).toEqual(evaluateConnectorScope(request.connector))
}

describe("evaluatePolicy properties", () => {
  it.prop("any decoded request: rule order and overall decision", { request: PolicyCheckRequest }, ({ request }) => {
    checkInvariants(request)
  }, RUNS)

  it.prop(
    "any wire-shaped request decodes, then satisfies the same invariants",
    { body: Schema.toEncoded(PolicyCheckRequest) },
    ({ body }) => {
      const decoded = decodePolicyCheck(body)
      if (Result.isFailure(decoded)) throw new Error(`generated body did not decode: ${decoded.failure}`)
      checkInvariants(decoded.success)
    },
    RUNS
  )

  // Amounts and limits near both thresholds (the schema-derived request above keeps amounts small);
  // `equal` makes the amount equal to the limit, the inclusive edge.
  const Amount = Schema.Union([
    Schema.Literals([0, 1, 9_999, 10_000, 10_001, 49_999, 50_000, 50_001, 80_000]),
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 120_000 }))
  ])
  const SpendCase = Schema.Struct({
    amount: Amount,
    currency: CurrencyCode,
    limit: Schema.optionalKey(Amount),
    equal: Schema.Boolean
  })

  it.prop("spend: ceiling first, then the user limit, both inclusive", { c: SpendCase }, ({ c }) => {
    const amount = c.equal && c.limit !== undefined ? c.limit : c.amount
    const spend = c.limit === undefined
      ? { amount_minor_units: amount, currency: c.currency }
      : { amount_minor_units: amount, currency: c.currency, user_limit_minor_units: c.limit }
    const limit = c.limit ?? 10_000
    const rule = evaluateSpend(spend)
    const expected: Outcome = amount > 50_000 ? "deny" : amount > limit ? "require_approval" : "allow"
    expect(rule.outcome).toBe(expected)
    expect(rule.detail.startsWith(`Amount ${formatMoney(amount, c.currency)} `)).toBe(true)
    expect(rule.detail).toContain(c.currency.toUpperCase())
    expect(rule.detail).toContain(formatMoney(expected === "deny" ? 50_000 : limit, c.currency))
  }, RUNS)

  const Scope = Schema.Union([
    Schema.Literals([
      "mcp://calendar",
      "mcp://crm",
      "mcp://email",
      "mcp://files",
      "mcp://support",
      "mcp://tasks",
      "mcp://root",
      "mcp://secrets",
      "mcp://admin",
      " mcp://crm ",
      "\tmcp://root\n",
      "MCP://calendar",
      "mcp://analytics"
    ]),
    Schema.String
  ])

  it.prop("connector: trimmed exact match decides the outcome", { scope: Scope }, ({ scope }) => {
    const trimmed = scope.trim()
    const rule = evaluateConnectorScope({ scope })
    const expected: Outcome = trimmed === ""
      ? "require_approval"
      : ["mcp://root", "mcp://secrets", "mcp://admin"].includes(trimmed)
      ? "deny"
      : ["mcp://calendar", "mcp://crm", "mcp://email", "mcp://files", "mcp://support", "mcp://tasks"].includes(trimmed)
      ? "allow"
      : "require_approval"
    expect(rule?.outcome).toBe(expected)
    if (trimmed !== "") expect(rule?.detail).toContain(trimmed)
  }, RUNS)
})
