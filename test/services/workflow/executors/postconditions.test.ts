/** Postconditions: the JSON path, each check, arrays of checks, malformed ones. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import {
  checkPostcondition,
  jsonEquals,
  parseJsonPath,
  parsePostcondition,
  unmetCheck,
  valueAt
} from "../../../../services/workflow/executors/postconditions.ts"

const http = { status: 200, headers: {}, body: { a: { b: [{ c: 1 }, "x"] }, "odd key": true, ok: true } }

describe("parseJsonPath / valueAt", () => {
  it("parses $.a.b[0] style paths", () => {
    expect(parseJsonPath("$")).toEqual([])
    expect(parseJsonPath("$.body.a.b[0].c")).toEqual(["body", "a", "b", 0, "c"])
    expect(parseJsonPath("$.body['odd key']")).toEqual(["body", "odd key"])
    expect(parseJsonPath("$[\"body\"]")).toEqual(["body"])
    for (const bad of ["a.b", "$.", "$[x]", "$..a", "$.a[", "$ a"]) expect(typeof parseJsonPath(bad)).toBe("string")
  })

  it("reads values; a missing one is undefined", () => {
    const at = (p: string) => valueAt(http, parseJsonPath(p) as ReadonlyArray<string | number>)
    expect(at("$.body.a.b[0].c")).toBe(1)
    expect(at("$.body.a.b[1]")).toBe("x")
    expect(at("$.body['odd key']")).toBe(true)
    expect(at("$.body.a.b[5]")).toBeUndefined()
    expect(at("$.body.a.b.c")).toBeUndefined()
    expect(at("$.body.a[0]")).toBeUndefined()
    expect(at("$.status.toString")).toBeUndefined()
    expect(at("$.body.constructor")).toBeUndefined()
  })

  it("compares JSON structurally", () => {
    expect(jsonEquals({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true)
    expect(jsonEquals({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true)
    expect(jsonEquals([1], { 0: 1 })).toBe(false)
    expect(jsonEquals(1, "1")).toBe(false)
    expect(jsonEquals(null, {})).toBe(false)
  })
})

describe("postconditions", () => {
  const unmet = (raw: unknown, result: unknown) => {
    const parsed = parsePostcondition(raw)
    if (parsed === undefined || typeof parsed === "string") throw new Error(String(parsed))
    return unmetCheck(parsed, result)
  }

  it("status compares with the result's status, else its exit_code (200 and \"200\" alike)", () => {
    expect(unmet({ status: 200 }, http)).toBeUndefined()
    expect(unmet({ status: "200" }, http)).toBeUndefined()
    expect(unmet({ status: 201 }, http)).toContain("status: expected 201, got 200")
    expect(unmet({ status: 0 }, { exit_code: 0, stdout: "" })).toBeUndefined()
    expect(unmet({ status: "completed" }, null)).toContain("no status")
  })

  it("json_path_equals: one check or several; names the failing path", () => {
    expect(unmet({ json_path_equals: { path: "$.body.ok", equals: true } }, http)).toBeUndefined()
    expect(unmet({ json_path_equals: [{ path: "$.body.ok", equals: true }, { path: "$.body.a.b[0]", equals: { c: 1 } }] }, http))
      .toBeUndefined()
    const message = unmet({ json_path_equals: [{ path: "$.body.ok", equals: true }, { path: "$.body.a.b[1]", equals: "y" }] }, http)
    expect(message).toContain("$.body.a.b[1]")
    expect(message).toContain("expected \"y\", got \"x\"")
    expect(unmet({ json_path_equals: { path: "$.nope", equals: null } }, http)).toContain("got nothing")
  })

  it("contains searches the body (text or JSON), else stdout", () => {
    expect(unmet({ contains: "odd key" }, http)).toBeUndefined()
    expect(unmet({ contains: "hello" }, { status: 200, body: "say hello" })).toBeUndefined()
    expect(unmet({ contains: "bye" }, { exit_code: 0, stdout: "hello" })).toContain("contains")
    expect(unmet({ contains: "x" }, { exit_code: 0, stdout: "x" })).toBeUndefined()
  })

  it("unknown keys are ignored; malformed postconditions are rejected", () => {
    expect(unmet({ status: 200, amount_minor_units: 5 }, http)).toBeUndefined()
    expect(parsePostcondition(undefined)).toBeUndefined()
    expect(parsePostcondition(null)).toBeUndefined()
    for (
      const bad of ["x", [1], { status: {} }, { contains: 1 }, { json_path_equals: { path: "a" , equals: 1 } }, {
        json_path_equals: { path: "$.a" }
      }]
    ) {
      expect(typeof parsePostcondition(bad)).toBe("string")
    }
  })

  it.effect("checkPostcondition fails with postcondition_failed (with the result) or invalid_action", () =>
    Effect.gen(function*() {
      yield* checkPostcondition(undefined, http)
      yield* checkPostcondition({ status: 200 }, http)
      const failed = yield* Effect.flip(checkPostcondition({ json_path_equals: { path: "$.body.ok", equals: false } }, http))
      expect(failed).toMatchObject({ code: "postcondition_failed", result: http })
      expect(failed.message).toContain("$.body.ok")
      const exit = yield* Effect.exit(checkPostcondition("nope", http))
      expect(Exit.isFailure(exit)).toBe(true)
      expect((yield* Effect.flip(checkPostcondition("nope", http))).code).toBe("invalid_action")
    }))
})
