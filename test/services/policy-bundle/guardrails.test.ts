/** The suggested-pattern guardrail (reference §1.4) and glob matching (reference §1.3). */
import { describe, expect, it } from "@effect/vitest"
import { isSafeSuggestedOverridePattern, suggestedPatternProblem } from "../../../services/policy-bundle/guardrails.ts"
import { wildcardMatch } from "../../../services/policy-bundle/wildcard.ts"

describe("isSafeSuggestedOverridePattern", () => {
  it.each([
    ["git status", true],
    ["git status*", true],
    ["https://api.example.com/v1/*", true],
    ["", false],
    ["   ", false],
    ["git st?tus", false],
    ["git * --force", false],
    ["git*status*", false],
    ["*", false],
    ["*.example.com", false],
    ["git *", false],
    ["git\t*", false]
  ])("%j → %s", (pattern, safe) => {
    expect(isSafeSuggestedOverridePattern(pattern)).toBe(safe)
    expect(suggestedPatternProblem(pattern) === undefined).toBe(safe)
  })

  it("says why a pattern fails", () => {
    expect(suggestedPatternProblem("*x")).toBe("the pattern starts with '*'")
    expect(suggestedPatternProblem("a*b")).toBe("the pattern's '*' is not its last character")
  })
})

describe("wildcardMatch", () => {
  it.each([
    ["tool.fs.read", "tool.fs.read", true],
    ["tool.fs.*", "tool.fs.read", true],
    ["tool.fs.*", "tool.fs.", true],
    ["tool.fs.*", "tool.exec", false],
    ["telegram:*", "telegram:chat:1", true],
    ["t?ol", "tool", true],
    ["t?ol", "tol", false],
    ["*", "", true],
    ["", "", true],
    ["", "x", false],
    ["a*b*c", "aXXbYYc", true],
    ["a*b*c", "aXXbYY", false],
    ["Tool", "tool", false],
    ["a.c", "abc", false],
    ["https://*.example.com/*", "https://api.example.com/v1", true]
  ])("%j matches %j: %s", (pattern, target, matches) => {
    expect(wildcardMatch(pattern, target)).toBe(matches)
  })

  it("stays fast on a pathological pattern", () => {
    const started = performance.now()
    expect(wildcardMatch("*a*a*a*a*a*a*a*a*b", "a".repeat(5000))).toBe(false)
    expect(performance.now() - started).toBeLessThan(2000)
  })
})
