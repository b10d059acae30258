/**
 * Boundary decoding: `makeDecoder` messages name the offending field path
 * (spec `policy-check.md` "Response 400: the request fails structural
 * validation"; reference 1.2 for what is invalid), and `parseJsonBody`
 * distinguishes an empty body from malformed JSON.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { describeInput, formatPath, makeDecoder, parseJsonBody } from "../../../services/shared/decode.ts"
import { PolicyCheckRequest } from "../../../services/policy/schema.ts"

const decodePolicyCheck = makeDecoder(PolicyCheckRequest)

const failure = (input: unknown): string => {
  const result = decodePolicyCheck(input)
  if (Result.isSuccess(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.success)}`)
  return result.failure
}

const success = (input: unknown): PolicyCheckRequest => {
  const result = decodePolicyCheck(input)
  if (Result.isFailure(result)) throw new Error(`expected a success, got ${result.failure}`)
  return result.success
}

const PII = "basic_contact, location, financial, health, biometric, government_id, other"
const LEGAL = "prohibited_content, requires_review, terms_unknown, export_controlled, other"

describe("makeDecoder(PolicyCheckRequest): failures name the field", () => {
  it.each([
    // non-object body
    [null, "body: expected a JSON object, got null"],
    [[], "body: expected a JSON object, got an array"],
    ["spend", "body: expected a JSON object, got \"spend\""],
    [42, "body: expected a JSON object, got 42"],
    [true, "body: expected a JSON object, got true"],
    // sections of the wrong type
    [{ spend: null }, "spend: expected an object, got null"],
    [{ pii: [] }, "pii: expected an object, got an array"],
    [{ legal: "none" }, "legal: expected an object, got \"none\""],
    [{ connector: "mcp://calendar" }, "connector: expected an object, got \"mcp://calendar\""],
    // wrong field types
    [{ request_id: 5 }, "request_id: expected a string, got 5"],
    [{ pii: { categories: "financial" } }, "pii.categories: expected an array, got \"financial\""],
    [{ legal: { flags: null } }, "legal.flags: expected an array, got null"],
    [{ connector: { scope: 5 } }, "connector.scope: expected a string, got 5"],
    [{ connector: { scope: null } }, "connector.scope: expected a string, got null"],
    // missing required spend fields
    [{ spend: {} }, "spend.amount_minor_units: missing required field"],
    [{ spend: { amount_minor_units: 100 } }, "spend.currency: missing required field"],
    // negative, fractional, numeric-string, non-finite-ish and unsafe amounts
    [
      { spend: { amount_minor_units: -5, currency: "EUR" } },
      "spend.amount_minor_units: expected a non-negative integer, got -5"
    ],
    [
      { spend: { amount_minor_units: 12.5, currency: "EUR" } },
      "spend.amount_minor_units: expected a non-negative integer, got 12.5"
    ],
    [
      { spend: { amount_minor_units: "500", currency: "EUR" } },
      "spend.amount_minor_units: expected a non-negative integer, got \"500\""
    ],
    [
      { spend: { amount_minor_units: 2 ** 60, currency: "EUR" } },
      `spend.amount_minor_units: expected a non-negative integer, got ${2 ** 60}`
    ],
    [
      { spend: { amount_minor_units: null, currency: "EUR" } },
      "spend.amount_minor_units: expected a non-negative integer, got null"
    ],
    [
      { spend: { amount_minor_units: 1, currency: "EUR", user_limit_minor_units: -1 } },
      "spend.user_limit_minor_units: expected a non-negative integer, got -1"
    ],
    [
      { spend: { amount_minor_units: 1, currency: "EUR", user_limit_minor_units: 0.5 } },
      "spend.user_limit_minor_units: expected a non-negative integer, got 0.5"
    ],
    [
      { spend: { amount_minor_units: 1, currency: "EUR", user_limit_minor_units: "10000" } },
      "spend.user_limit_minor_units: expected a non-negative integer, got \"10000\""
    ],
    // bad currency
    [
      { spend: { amount_minor_units: 1, currency: "EURO" } },
      "spend.currency: expected a three-letter currency code, got \"EURO\""
    ],
    [{ spend: { amount_minor_units: 1, currency: "" } }, "spend.currency: expected a three-letter currency code, got \"\""],
    [
      { spend: { amount_minor_units: 1, currency: "E1R" } },
      "spend.currency: expected a three-letter currency code, got \"E1R\""
    ],
    [
      { spend: { amount_minor_units: 1, currency: "ÉUR" } },
      "spend.currency: expected a three-letter currency code, got \"ÉUR\""
    ],
    [{ spend: { amount_minor_units: 1, currency: 978 } }, "spend.currency: expected a three-letter currency code, got 978"],
    // unknown enum values
    [{ pii: { categories: ["location", "dna"] } }, `pii.categories[1]: expected one of ${PII}, got "dna"`],
    [{ pii: { categories: ["BIOMETRIC"] } }, `pii.categories[0]: expected one of ${PII}, got "BIOMETRIC"`],
    [{ legal: { flags: ["other", "unknown_flag"] } }, `legal.flags[1]: expected one of ${LEGAL}, got "unknown_flag"`]
  ] as const)("%j → %s", (input, message) => {
    expect(failure(input)).toBe(message)
  })

  it("reports the first problem only", () => {
    expect(failure({ spend: { amount_minor_units: -1, currency: "EURO" }, pii: { categories: ["dna"] } })).toBe(
      "spend.amount_minor_units: expected a non-negative integer, got -1"
    )
  })

  it("never echoes a large payload", () => {
    const message = failure({ spend: { amount_minor_units: 1, currency: "E".repeat(10_000) } })
    expect(message.startsWith("spend.currency: expected a three-letter currency code, got \"EEEE")).toBe(true)
    expect(message.length).toBeLessThanOrEqual(240)
    expect(failure({ legal: { flags: ["x".repeat(10_000)] } }).length).toBeLessThanOrEqual(240)
  })
})

describe("makeDecoder(PolicyCheckRequest): successes", () => {
  it("accepts the empty request", () => {
    expect(success({})).toEqual({})
  })

  it("defaults absent lists to [] (pii: {} and legal: {})", () => {
    expect(success({ pii: {}, legal: {} })).toEqual({ pii: { categories: [] }, legal: { flags: [] } })
  })

  it("strips unknown keys at every level instead of rejecting them", () => {
    expect(success({
      extra: true,
      spend: { amount_minor_units: 0, currency: "eur", note: "x" },
      pii: { categories: [], more: 1 },
      connector: { scope: "mcp://crm", id: 7 }
    })).toEqual({
      spend: { amount_minor_units: 0, currency: "eur" },
      pii: { categories: [] },
      connector: { scope: "mcp://crm" }
    })
  })

  it("keeps the currency as sent (any case) and trims the connector scope", () => {
    expect(success({
      spend: { amount_minor_units: 8750, currency: "eUr", user_limit_minor_units: 0 },
      connector: { scope: "  mcp://calendar\n" }
    })).toEqual({
      spend: { amount_minor_units: 8750, currency: "eUr", user_limit_minor_units: 0 },
      connector: { scope: "mcp://calendar" }
    })
  })

  it("accepts connector: {} and a blank scope (the engine asks for consent)", () => {
    expect(success({ connector: {} })).toEqual({ connector: {} })
    expect(success({ connector: { scope: "   " } })).toEqual({ connector: { scope: "" } })
  })

  it("accepts any request_id string, including empty", () => {
    expect(success({ request_id: "" })).toEqual({ request_id: "" })
    expect(success({ request_id: "req-1" })).toEqual({ request_id: "req-1" })
  })

  it("accepts the largest safe integer amount", () => {
    expect(success({ spend: { amount_minor_units: Number.MAX_SAFE_INTEGER, currency: "USD" } })).toEqual({
      spend: { amount_minor_units: Number.MAX_SAFE_INTEGER, currency: "USD" }
    })
  })
})

describe("makeDecoder is generic", () => {
  const Item = Schema.Struct({
    tags: Schema.Array(Schema.String),
    "odd key": Schema.optionalKey(Schema.Number),
    pair: Schema.optionalKey(Schema.Tuple([Schema.String, Schema.Boolean]))
  })
  const decodeItem = makeDecoder(Item, { label: "query" })

  it("uses the label for root issues and the path for nested ones", () => {
    expect(decodeItem(1)).toEqual(Result.fail("query: expected an object, got 1"))
    expect(decodeItem({})).toEqual(Result.fail("tags: missing required field"))
    expect(decodeItem({ tags: ["a", 2] })).toEqual(Result.fail("tags[1]: expected a string, got 2"))
    expect(decodeItem({ tags: [], "odd key": "1" })).toEqual(Result.fail("[\"odd key\"]: expected a number, got \"1\""))
    expect(decodeItem({ tags: [], pair: ["a", "b"] })).toEqual(Result.fail("pair[1]: expected a boolean, got \"b\""))
  })

  it("returns the decoded value on success", () => {
    expect(decodeItem({ tags: ["a"], pair: ["x", true] })).toEqual(Result.succeed({ tags: ["a"], pair: ["x", true] }))
  })

  it("formatPath and describeInput", () => {
    expect(formatPath([])).toBe("body")
    expect(formatPath([], "input")).toBe("input")
    expect(formatPath(["a", 0, "b-c", { key: "d" }])).toBe("a[0][\"b-c\"].d")
    expect(describeInput("x".repeat(50))).toBe(JSON.stringify(`${"x".repeat(40)}…`))
    expect(describeInput({ a: 1 })).toBe("an object")
    expect(describeInput(undefined)).toBe("undefined")
  })
})

describe("parseJsonBody", () => {
  it.each(["", " ", "\n\t  \r\n"])("empty body %j", (text) => {
    expect(parseJsonBody(text)).toEqual(Result.fail("request body is empty"))
  })

  it.each(["{", "{a:1}", "[1,]", "nul", "{\"spend\": }", "'x'", "{} x"])("malformed JSON %j", (text) => {
    const result = parseJsonBody(text)
    expect(Result.isFailure(result)).toBe(true)
    if (Result.isFailure(result)) {
      expect(result.failure).toMatch(/^malformed JSON: \S/)
      expect(result.failure.length).toBeLessThanOrEqual("malformed JSON: ".length + 120)
    }
  })

  it("keeps the reason short for huge invalid bodies", () => {
    const result = parseJsonBody(`{"a": ${"x".repeat(100_000)}}`)
    expect(Result.isFailure(result) && result.failure.length <= "malformed JSON: ".length + 120).toBe(true)
  })

  it.each([
    ["{}", {}],
    [" {\"spend\": {\"amount_minor_units\": 1}} ", { spend: { amount_minor_units: 1 } }],
    ["[]", []],
    ["null", null],
    ["3", 3]
  ] as const)("valid JSON %j parses (shape is the decoder's job)", (text, value) => {
    expect(parseJsonBody(text)).toEqual(Result.succeed(value))
  })

  it("composes with the decoder", () => {
    const decoded = Result.flatMap(parseJsonBody("[]"), decodePolicyCheck)
    expect(decoded).toEqual(Result.fail("body: expected a JSON object, got an array"))
  })
})
