/** `parseJsonBody` never quotes the body back (a body may hold a secret). */
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { parseJsonBody } from "../../../services/shared/decode.ts"

describe("parseJsonBody reasons", () => {
  it.each(["s3cr3tvalue", "{\"value\": s3cr3t}", "{\"value\":\"s3cr3t\" x", "\"s3cr3t", "[\"s3cr3t\",]"])("does not echo %j", (text) => {
    const result = parseJsonBody(text)
    expect(Result.isFailure(result)).toBe(true)
    if (Result.isFailure(result)) {
      expect(result.failure).toMatch(/^malformed JSON: \S/)
      expect(result.failure).not.toContain("s3cr3t")
      expect(result.failure).not.toMatch(/'s'/)
    }
  })
})
