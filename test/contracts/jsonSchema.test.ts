/**
 * The document generator on small schemas (src/contracts/jsonSchema.ts):
 * the encoded side, flagless patterns, plain numbers, the root definition
 * inlined, and each kind of `x-decoder-only` mark.
 */
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { DECODER_ONLY_KEYWORD, isUnicodeSafePattern, toJsonSchemaDocument } from "../../src/contracts/jsonSchema.ts"

const doc = (schema: Schema.Top) => toJsonSchemaDocument(schema, { id: "https://example.test/X.json", title: "X" }) as any

describe("toJsonSchemaDocument", () => {
  it("stamps $schema, $id and title, inlines the root definition and keeps shared ones in $defs", () => {
    const Inner = Schema.Struct({ a: Schema.String }).annotate({ identifier: "Inner" })
    const Outer = Schema.Struct({ one: Inner, two: Inner }).annotate({ identifier: "Outer", title: "Human title" })
    expect(doc(Outer)).toEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "https://example.test/X.json",
      title: "X",
      type: "object",
      properties: { one: { $ref: "#/$defs/Inner" }, two: { $ref: "#/$defs/Inner" } },
      required: ["one", "two"],
      additionalProperties: true,
      $defs: { Inner: { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: true } }
    })
  })

  it("describes the encoded side: a number parsed from a string is a string, plain numbers are JSON numbers", () => {
    const schema = Schema.Struct({ n: Schema.Number, parsed: Schema.NumberFromString, int: Schema.Int })
    expect(doc(schema).properties).toEqual({
      n: { type: "number" },
      parsed: { type: "string" },
      int: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 }
    })
  })

  it("keeps flagless patterns that mean the same with Unicode semantics, marks the others", () => {
    const schema = Schema.Struct({
      code: Schema.String.check(Schema.isPattern(/^[A-Za-z]{3}$/)),
      single: Schema.String.check(Schema.isPattern(/^.$/, { expected: "one character" })),
      folded: Schema.String.check(Schema.isPattern(/^abc$/i, { expected: "abc in any case" }))
    })
    const document = doc(schema)
    expect(document.properties.code).toEqual({ type: "string", pattern: "^[A-Za-z]{3}$" })
    expect(document.properties.single).toEqual({ type: "string" })
    expect(document[DECODER_ONLY_KEYWORD]).toEqual([
      { path: "/single", check: "one character", reason: "custom-check" },
      { path: "/folded", check: "abc in any case", reason: "custom-check" }
    ])
  })

  it("marks custom filters, checks after a transformation, checked record keys and custom declarations", () => {
    const Strict = Schema.declare((u: unknown): u is { readonly x: 1 } => typeof u === "object" && u !== null, {
      expected: "a strict object"
    })
    const schema = Schema.Struct({
      even: Schema.Int.check(Schema.makeFilter((n: number) => n % 2 === 0, { expected: "an even number" })),
      limit: Schema.optionalKey(Schema.NumberFromString.check(Schema.isBetween({ minimum: 1, maximum: 5 }))),
      labels: Schema.Record(Schema.String.check(Schema.isMinLength(2)), Schema.String),
      open: Schema.Record(Schema.String, Schema.Int),
      selected: Schema.Record(Schema.String.check(Schema.isPattern(/^[a-z]+$/)), Schema.Int),
      strict: Strict
    })
    expect(doc(schema)[DECODER_ONLY_KEYWORD]).toEqual([
      { path: "/even", check: "an even number", reason: "custom-check" },
      { path: "/limit", check: "a value between 1 and 5", reason: "after-decoding" },
      { path: "/labels/*", check: "entries whose keys are checked (a value with a length of at least 2)", reason: "custom-check" },
      { path: "/strict", check: "a strict object", reason: "custom-decoder" }
    ])
  })

  it("has no mark when every check has an exact JSON Schema form", () => {
    const schema = Schema.Struct({
      name: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(10)),
      items: Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 9 }))).check(Schema.isMaxLength(3)),
      any: Schema.Unknown
    })
    expect(doc(schema)[DECODER_ONLY_KEYWORD]).toBeUndefined()
  })
})

describe("isUnicodeSafePattern", () => {
  it("accepts ASCII classes and repeated negations, refuses what counts code units or does not compile with u", () => {
    for (const source of ["^[A-Za-z]{3}$", "^[0-9]{1,15}$", "^[^:]*$", "^\\d+\\.\\d+$", "^[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)+$", "^\\S+$"]) {
      expect([source, isUnicodeSafePattern(source)]).toEqual([source, true])
    }
    for (const source of ["^.$", "^[^:]{1,4}$", "^\\S{2}$", "^\\-$", "^a.?b$"]) {
      expect([source, isUnicodeSafePattern(source)]).toEqual([source, false])
    }
  })
})
