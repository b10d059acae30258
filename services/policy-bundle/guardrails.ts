/**
 * The suggested-pattern guardrail of "approve always" (reference §1.4,
 * `isSafeSuggestedOverridePattern`): an override pattern offered to an
 * operator, or accepted from one through `mode: "always"`, must be narrow.
 *
 * @module
 */

/** Why a pattern fails the guardrail, or `undefined` when it passes. */
export const suggestedPatternProblem = (pattern: string): string | undefined => {
  if (pattern.trim() === "") return "the pattern is empty"
  if (pattern.includes("?")) return "the pattern contains '?'"
  const stars = pattern.split("*").length - 1
  if (stars > 1) return "the pattern has more than one '*'"
  if (stars === 1) {
    if (pattern.startsWith("*")) return "the pattern starts with '*'"
    if (!pattern.endsWith("*")) return "the pattern's '*' is not its last character"
    if (/\s\*$/.test(pattern)) return "the pattern has whitespace before its trailing '*'"
  }
  return undefined
}

/**
 * True when `pattern` passes the guardrail (reference §1.4): not empty, no
 * `?`, at most one `*`, and that `*` last, not leading, not after whitespace.
 */
export const isSafeSuggestedOverridePattern = (pattern: string): boolean => suggestedPatternProblem(pattern) === undefined
