/**
 * Snapshot value normalisation (services/snapshots/values.ts), without a
 * database: what each driver returns becomes one portable form, and the
 * portable form binds back per dialect.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { toPortable, toStored } from "../../../services/snapshots/values.ts"

const portable = (kind: Parameters<typeof toPortable>[0], value: unknown) => Result.getOrThrow(toPortable(kind, value))
const problem = (result: Result.Result<unknown, string>) => (Result.isFailure(result) ? result.failure : undefined)

describe("toPortable", () => {
  it("SQL NULL is null in every kind", () => {
    for (const kind of ["text", "integer", "serial", "boolean", "json", "timestamp"] as const) {
      expect(portable(kind, null)).toBeNull()
      expect(portable(kind, undefined)).toBeNull()
    }
  })

  it("booleans: SQLite's 1/0 (number or bigint) and PostgreSQL's true/false give true/false", () => {
    expect([portable("boolean", 1), portable("boolean", 0), portable("boolean", 1n), portable("boolean", 0n)]).toEqual([true, false, true, false])
    expect([portable("boolean", true), portable("boolean", false)]).toEqual([true, false])
    expect(problem(toPortable("boolean", 2))).toBe("not a boolean (0/1)")
  })

  it("integers: numbers when safe, decimal strings beyond 2^53 (never rounded), from number, bigint or int8 text", () => {
    expect(portable("integer", 42)).toBe(42)
    expect(portable("serial", 42n)).toBe(42)
    expect(portable("integer", 9007199254740991n)).toBe(9007199254740991)
    expect(portable("integer", 9007199254740993n)).toBe("9007199254740993")
    expect(portable("integer", -9223372036854775808n)).toBe("-9223372036854775808")
    expect(portable("integer", "9007199254740993")).toBe("9007199254740993")
    expect(portable("integer", "17")).toBe(17)
    expect(problem(toPortable("integer", 1.5))).toBe("not an integer")
    expect(problem(toPortable("integer", "x"))).toBe("not an integer")
  })

  it("JSON: text is parsed (SQLite, TEXT columns); jsonb values pass as they are", () => {
    expect(portable("json", "{\"a\":[1,\"x\",null],\"1\":true}")).toEqual({ "1": true, a: [1, "x", null] })
    expect(portable("json", "null")).toBeNull()
    expect(portable("json", "\"text\"")).toBe("text")
    expect(portable("json", { a: 1 })).toEqual({ a: 1 })
    expect(portable("json", [1, 2])).toEqual([1, 2])
    expect(problem(toPortable("json", "{oops"))).toBe("not JSON text")
  })

  it("re-encoding parsed JSON gives back the text the gateway wrote (JSON.stringify output, canonical or not)", () => {
    for (const text of ["{\"b\":1,\"a\":{\"z\":[],\"10\":2,\"9\":3}}", "[1.5,1e+21,-0.1,\"\\u2028\",\"é\"]", "{\"__proto__\":1}"]) {
      const written = JSON.stringify(JSON.parse(text))
      expect(Result.getOrThrow(toStored("json", portable("json", written), "sqlite", true))).toBe(written)
    }
  })

  it("timestamps: ISO-8601 UTC with milliseconds; Dates (timestamptz) and zoned text are converted", () => {
    expect(portable("timestamp", "2026-01-02T03:04:05.678Z")).toBe("2026-01-02T03:04:05.678Z")
    expect(portable("timestamp", new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)))).toBe("2026-01-02T03:04:05.678Z")
    expect(portable("timestamp", "2026-01-02T04:04:05+01:00")).toBe("2026-01-02T03:04:05.000Z")
    expect(problem(toPortable("timestamp", "yesterday"))).toBe("not an ISO-8601 timestamp")
    expect(problem(toPortable("timestamp", "2026-01-02T03:04:05"))).toBe("not an ISO-8601 timestamp")
    expect(problem(toPortable("timestamp", new Date(Number.NaN)))).toBe("not a valid time")
  })

  it("text stays text", () => {
    expect(portable("text", "abc")).toBe("abc")
    expect(problem(toPortable("text", new Uint8Array(1)))).toBe("not text")
  })
})

describe("toStored", () => {
  const stored = (kind: Parameters<typeof toStored>[0], value: unknown, dialect: "sqlite" | "postgres", notNull = false) =>
    Result.getOrThrow(toStored(kind, value, dialect, notNull))

  it("booleans bind as 1/0 on SQLite, as untyped text '1'/'0' on PostgreSQL (fits BOOLEAN and INTEGER columns)", () => {
    expect([stored("boolean", true, "sqlite"), stored("boolean", false, "sqlite")]).toEqual([1, 0])
    expect([stored("boolean", true, "postgres"), stored("boolean", false, "postgres")]).toEqual(["1", "0"])
    expect(problem(toStored("boolean", 1, "sqlite", false))).toBe("expected true or false")
  })

  it("integers: numbers on SQLite (bigint beyond 2^53), decimal text on PostgreSQL; 64-bit range enforced", () => {
    expect(stored("integer", 7, "sqlite")).toBe(7)
    expect(stored("integer", 7, "postgres")).toBe("7")
    expect(stored("serial", "9007199254740993", "sqlite")).toBe(9007199254740993n)
    expect(stored("serial", "9007199254740993", "postgres")).toBe("9007199254740993")
    expect(stored("integer", "12", "sqlite")).toBe(12)
    expect(problem(toStored("integer", "9223372036854775808", "sqlite", false))).toMatch(/within 64 bits/)
    expect(problem(toStored("integer", 1.5, "postgres", false))).toMatch(/^expected an integer/)
    expect(problem(toStored("integer", "1e3", "postgres", false))).toMatch(/^expected an integer/)
  })

  it("JSON values bind as JSON text; null is SQL NULL, or the JSON text null in a NOT NULL column", () => {
    expect(stored("json", { a: [1, null] }, "postgres")).toBe("{\"a\":[1,null]}")
    expect(stored("json", "s", "sqlite")).toBe("\"s\"")
    expect(stored("json", null, "sqlite")).toBeNull()
    expect(stored("json", null, "sqlite", true)).toBe("null")
    expect(stored("text", null, "sqlite", true)).toBeNull()
  })

  it("timestamps bind as ISO-8601 UTC with milliseconds; a time without a zone is refused", () => {
    expect(stored("timestamp", "2026-01-02T03:04:05.678Z", "sqlite")).toBe("2026-01-02T03:04:05.678Z")
    expect(stored("timestamp", "2026-01-02T04:04:05+01:00", "postgres")).toBe("2026-01-02T03:04:05.000Z")
    expect(problem(toStored("timestamp", "2026-01-02 03:04:05", "sqlite", false))).toMatch(/^expected an ISO-8601 timestamp/)
    expect(problem(toStored("timestamp", 5, "sqlite", false))).toMatch(/^expected an ISO-8601 timestamp/)
  })

  it("text must be a string", () => {
    expect(stored("text", "x", "postgres")).toBe("x")
    expect(problem(toStored("text", 5, "postgres", false))).toBe("expected a string")
  })

  it("portable → stored (SQLite) → portable is the identity for every kind", () => {
    const samples: ReadonlyArray<readonly [Parameters<typeof toStored>[0], unknown]> = [
      ["text", "a"],
      ["integer", -3],
      ["integer", "9007199254740993"],
      ["boolean", true],
      ["json", { k: [1, "2", { x: null }] }],
      ["timestamp", "2026-01-02T03:04:05.678Z"]
    ]
    for (const [kind, value] of samples) expect(portable(kind, stored(kind, value, "sqlite"))).toEqual(value)
  })
})
