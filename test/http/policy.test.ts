/** POST /policy/check end to end on a real server (policy-check.md "Endpoints"). */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw.close())

const check = (body: unknown) => postJson(gw, "/policy/check", body, gw.adminToken)

describe("POST /policy/check", () => {
  it("returns the documented decision and detail strings", async () => {
    const res = await check({
      spend: { amount_minor_units: 8750, currency: "EUR" },
      pii: { categories: ["basic_contact"] },
      legal: { flags: [] },
      connector: { scope: "mcp://calendar" }
    })
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("application/json")
    expect(await readJson(res)).toEqual({
      decision: "allow",
      rules: [
        { rule: "spend_limit", outcome: "allow", detail: "Amount EUR 87.50 within auto-approval limit EUR 100.00." },
        { rule: "pii_guardrail", outcome: "allow", detail: "PII categories acceptable for automated handling: basic_contact." },
        { rule: "legal_compliance", outcome: "allow", detail: "No legal flags raised." },
        { rule: "connector_scope", outcome: "allow", detail: "Connector scope mcp://calendar already granted." }
      ]
    })
  })

  it.each([
    [{ spend: { amount_minor_units: 5000, currency: "USD" }, pii: { categories: [] }, legal: { flags: [] } }, "allow"],
    [{ spend: { amount_minor_units: 60000, currency: "USD" } }, "deny"],
    [{ spend: { amount_minor_units: 15000, currency: "USD" } }, "require_approval"],
    [{ pii: { categories: ["biometric"] } }, "deny"],
    [{ spend: { amount_minor_units: 50000, currency: "USD" }, pii: { categories: [] }, legal: { flags: [] } }, "require_approval"]
  ])("%j → %s", async (body, decision) => {
    const res = await check(body)
    expect(res.status).toBe(200)
    expect((await readJson(res)).decision).toBe(decision)
  })

  it("escalates an empty request with three missing-context rules", async () => {
    const body = await readJson(await check({}))
    expect(body.decision).toBe("require_approval")
    expect(body.rules.map((r: { rule: string }) => r.rule)).toEqual(["spend_limit", "pii_guardrail", "legal_compliance"])
    expect(body.rules.every((r: { outcome: string }) => r.outcome === "require_approval")).toBe(true)
  })

  it("skips the connector rule when connector.scope is omitted, and escalates a blank scope", async () => {
    const base = { spend: { amount_minor_units: 100, currency: "EUR" }, pii: { categories: [] }, legal: { flags: [] } }
    const skipped = await readJson(await check({ ...base, connector: {} }))
    expect(skipped.decision).toBe("allow")
    expect(skipped.rules.map((r: { rule: string }) => r.rule)).toEqual(["spend_limit", "pii_guardrail", "legal_compliance"])
    const blank = await readJson(await check({ ...base, connector: { scope: "  " } }))
    expect(blank.decision).toBe("require_approval")
    expect(blank.rules[3]).toEqual({ rule: "connector_scope", outcome: "require_approval", detail: "Connector scope is blank; escalate for consent." })
  })

  it("ignores unknown keys", async () => {
    const res = await check({ extra: 1, spend: { amount_minor_units: 1, currency: "usd", note: "x" }, pii: {}, legal: {} })
    expect(res.status).toBe(200)
    expect((await readJson(res)).decision).toBe("allow")
  })
})

describe("POST /policy/check structural failures are 400 invalid_request naming the field", () => {
  const cases: ReadonlyArray<readonly [string, string, RegExp]> = [
    ["malformed JSON", "{bad", /malformed JSON/],
    ["empty body", "", /empty/],
    ["array body", "[]", /^body: expected a JSON object/],
    ["null body", "null", /^body/],
    ["string body", "\"hi\"", /^body/],
    ["negative amount", JSON.stringify({ spend: { amount_minor_units: -5, currency: "EUR" } }), /spend\.amount_minor_units/],
    ["fractional amount", JSON.stringify({ spend: { amount_minor_units: 1.5, currency: "EUR" } }), /spend\.amount_minor_units/],
    ["numeric string amount", JSON.stringify({ spend: { amount_minor_units: "100", currency: "EUR" } }), /spend\.amount_minor_units/],
    ["missing currency", JSON.stringify({ spend: { amount_minor_units: 100 } }), /spend\.currency/],
    ["bad currency", JSON.stringify({ spend: { amount_minor_units: 100, currency: "EURO" } }), /spend\.currency/],
    ["negative user limit", JSON.stringify({ spend: { amount_minor_units: 1, currency: "EUR", user_limit_minor_units: -1 } }), /spend\.user_limit_minor_units/],
    ["unknown pii category", JSON.stringify({ pii: { categories: ["basic_contact", "dna"] } }), /pii\.categories\[1\]/],
    ["unknown legal flag", JSON.stringify({ legal: { flags: ["nope"] } }), /legal\.flags\[0\]/],
    ["wrong section type", JSON.stringify({ pii: "financial" }), /^pii/],
    ["non-string scope", JSON.stringify({ connector: { scope: 5 } }), /connector\.scope/],
    ["non-string request_id", JSON.stringify({ request_id: 5 }), /request_id/]
  ]
  it.each(cases)("%s", async (_name, body, message) => {
    const res = await check(body)
    expect(res.status).toBe(400)
    const json = await readJson(res)
    expect(json.error).toBe("invalid_request")
    expect(json.message).toMatch(message)
  })
})
