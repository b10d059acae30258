/**
 * Glob matching of policy patterns (reference §1.3): `*` matches any run of
 * characters (also none), `?` exactly one; every other character matches
 * itself, case-sensitively. No regular expressions are built, and the
 * greedy two-pointer walk is linear-ish (O(pattern × target) worst case), so
 * a hostile pattern cannot blow up.
 *
 * @module
 */

/** True when `target` matches `pattern` as a whole. */
export const wildcardMatch = (pattern: string, target: string): boolean => {
  let p = 0
  let t = 0
  let star = -1
  let resume = 0
  while (t < target.length) {
    if (p < pattern.length && (pattern[p] === "?" || (pattern[p] !== "*" && pattern[p] === target[t]))) {
      p++
      t++
    } else if (p < pattern.length && pattern[p] === "*") {
      star = p++
      resume = t
    } else if (star !== -1) {
      p = star + 1
      t = ++resume
    } else {
      return false
    }
  }
  while (p < pattern.length && pattern[p] === "*") p++
  return p === pattern.length
}
