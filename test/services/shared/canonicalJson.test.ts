/**
 * services/shared/canonicalJson.ts against RFC 8785 (JCS): the worked example
 * of §3.2.2–3.2.4 (output text and its UTF-8 bytes), the sorting example of
 * §3.2.3, and the number table of Appendix B, written here from the RFC.
 */
import { describe, expect, it } from "@effect/vitest"
import { canonicalJson, canonicalSha256 } from "../../../services/shared/canonicalJson.ts"
import { sha256, sha256Hex } from "../../../services/shared/sha256.ts"

/** The RFC's §3.2.2 input, as JSON text. */
const RFC_INPUT = String.raw`{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`

/** Its canonical form (§3.2.3 / §3.2.4). */
const RFC_OUTPUT = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`

/** §3.2.4: the UTF-8 bytes of the canonical form. */
const RFC_OUTPUT_UTF8 = `
7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72
75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a
5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31
65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37
5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30
30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d`.replace(/\s+/g, "")

/** §3.2.3: the sorting example's input. */
const RFC_SORTING_INPUT = String.raw`{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`

/** §3.2.3: the expected order of its properties, by value. */
const RFC_SORTED_VALUES = [
  "Carriage Return",
  "One",
  "Control",
  "Latin Small Letter O With Diaeresis",
  "Euro Sign",
  "Emoji: Grinning Face",
  "Hebrew Letter Dalet With Dagesh"
]

/** Appendix B: IEEE-754 binary64 bit patterns and their canonical text. */
const RFC_NUMBERS: ReadonlyArray<readonly [string, string]> = [
  ["0000000000000000", "0"],
  ["8000000000000000", "0"],
  ["0000000000000001", "5e-324"],
  ["8000000000000001", "-5e-324"],
  ["7fefffffffffffff", "1.7976931348623157e+308"],
  ["ffefffffffffffff", "-1.7976931348623157e+308"],
  ["4340000000000000", "9007199254740992"],
  ["c340000000000000", "-9007199254740992"],
  ["4430000000000000", "295147905179352830000"],
  ["44b52d02c7e14af5", "9.999999999999997e+22"],
  ["44b52d02c7e14af6", "1e+23"],
  ["44b52d02c7e14af7", "1.0000000000000001e+23"],
  ["444b1ae4d6e2ef4e", "999999999999999700000"],
  ["444b1ae4d6e2ef4f", "999999999999999900000"],
  ["444b1ae4d6e2ef50", "1e+21"],
  ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
  ["3eb0c6f7a0b5ed8d", "0.000001"],
  ["41b3de4355555553", "333333333.3333332"],
  ["41b3de4355555554", "333333333.33333325"],
  ["41b3de4355555555", "333333333.3333333"],
  ["41b3de4355555556", "333333333.3333334"],
  ["41b3de4355555557", "333333333.33333343"],
  ["becbf647612f3696", "-0.0000033333333333333333"],
  ["43143ff3c1cb0959", "1424953923781206.2"]
]

/** Appendix B: the bit patterns that must be refused (NaN, Infinity). */
const RFC_REFUSED = ["7fffffffffffffff", "7ff0000000000000"]

const fromBits = (hex: string): number => Buffer.from(hex, "hex").readDoubleBE(0)

describe("canonicalJson (RFC 8785)", () => {
  it("writes the RFC's worked example (§3.2.2–3.2.4) byte for byte", () => {
    const text = canonicalJson(JSON.parse(RFC_INPUT))
    expect(text).toBe(RFC_OUTPUT)
    expect(Buffer.from(text, "utf8").toString("hex")).toBe(RFC_OUTPUT_UTF8)
  })

  it("sorts members by UTF-16 code units (§3.2.3): \\r, 1, U+0080, ö, €, 😀, U+FB33", () => {
    const text = canonicalJson(JSON.parse(RFC_SORTING_INPUT))
    const values = [...text.matchAll(/:"([^"]*)"/g)].map((m) => m[1])
    expect(values).toEqual(RFC_SORTED_VALUES)
    expect(text).toBe(
      "{" + String.raw`"\r":"Carriage Return","1":"One",` +
        "\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\"," +
        "\"\ud83d\ude00\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"
    )
  })

  it("writes Appendix B's numbers as ECMAScript does and refuses NaN and Infinity", () => {
    for (const [bits, expected] of RFC_NUMBERS) expect([bits, canonicalJson(fromBits(bits))]).toEqual([bits, expected])
    for (const bits of RFC_REFUSED) expect(() => canonicalJson({ n: [fromBits(bits)] })).toThrow(/n\.0 is (NaN|Infinity)/)
    expect(() => canonicalJson(-Infinity)).toThrow(TypeError)
  })

  it("orders names that look like array indices as text, not as numbers", () => {
    expect(canonicalJson({ "9": "b", "10": "a", z: 1, "!": 2 })).toBe('{"!":2,"10":"a","9":"b","z":1}')
  })

  it("reads values as JSON.stringify does: toJSON, undefined members dropped, null in arrays; no whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}')
    expect(canonicalJson({ at: new Date(0), list: [undefined, () => 1], f: () => 1 })).toBe(
      '{"at":"1970-01-01T00:00:00.000Z","list":[null,null]}'
    )
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1}}'))).toBe('{"__proto__":{"x":1}}')
  })

  it("refuses what has no JSON form: a bigint, a cycle, a bare undefined", () => {
    expect(() => canonicalJson({ a: { n: 1n } })).toThrow(/a\.n is a bigint/)
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(() => canonicalJson(cyclic)).toThrow(/self refers to itself/)
    expect(() => canonicalJson(undefined)).toThrow(TypeError)
    // A value shared by two members is not a cycle.
    const shared = { x: 1 }
    expect(canonicalJson({ a: shared, b: [shared] })).toBe('{"a":{"x":1},"b":[{"x":1}]}')
  })

  it("canonicalSha256 is the SHA-256 of the canonical text", () => {
    // printf '%s' '{"tools":{"allow":["a"],"deny":[]},"v":1}' | sha256sum
    expect(canonicalSha256({ v: 1, tools: { deny: [], allow: ["a"] } })).toBe(
      "998983a61055b9532789a1a25ec0dc7ff48909ba97bede4892864dc7f954671f"
    )
    expect(canonicalSha256({ a: [1, 2] })).not.toBe(canonicalSha256({ a: [2, 1] }))
  })
})

describe("sha256", () => {
  it("hashes strings as UTF-8 and bytes as they are (FIPS 180-2 vectors)", () => {
    const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    expect(sha256Hex("abc")).toBe(abc)
    expect(sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe(abc)
    expect(Buffer.from(sha256("abc")).toString("hex")).toBe(abc)
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    // é is C3 A9 in UTF-8; a lone surrogate is written as U+FFFD (EF BF BD).
    expect(sha256Hex("é")).toBe(sha256Hex(new Uint8Array([0xc3, 0xa9])))
    expect(sha256Hex("\ud800")).toBe(sha256Hex(new Uint8Array([0xef, 0xbf, 0xbd])))
  })
})
