/**
 * RegExp patterns in the JSON Schema documents (src/contracts/jsonSchema.ts).
 * Effect's compiler exports a `Schema.isPattern` check only when its RegExp
 * carries the `u` flag, because JSON Schema matches patterns with Unicode
 * semantics. The gateway's patterns are flagless and ASCII: those that mean
 * the same either way ({@link isUnicodeSafePattern}) are exported as written.
 *
 * @module
 */

/** The source and flags of a `Schema.isPattern` check (AST or representation). */
const patternOf = (check: { readonly representation?: unknown; readonly annotations?: { readonly representation?: unknown } | undefined }) => {
  const representation = (check.representation ?? check.annotations?.representation) as
    | { readonly id?: unknown; readonly payload?: { readonly source?: unknown; readonly flags?: unknown } }
    | undefined
  const payload = representation?.id === "effect/schema/isPattern" ? representation.payload : undefined
  return typeof payload?.source === "string" && typeof payload.flags === "string"
    ? { source: payload.source, flags: payload.flags }
    : undefined
}

/**
 * Whether a RegExp written without flags means the same in JSON Schema,
 * whose patterns are matched with Unicode semantics (the `u` flag): it must
 * compile with `u`, and every atom that could match half of a surrogate pair
 * without `u` (`.`, a negated class, `\D`, `\S`, `\W`) must be repeated
 * with `*` or `+`, so counting code units or code points makes no difference.
 * Effect exports only `u` patterns; the gateway's patterns are ASCII, so
 * most pass this test and keep their `pattern` in the document.
 */
export const isUnicodeSafePattern = (source: string): boolean => {
  try {
    new RegExp(source, "u")
  } catch {
    return false
  }
  const repeated = (next: string | undefined) => next === "*" || next === "+"
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === "\\") {
      const escaped = source[++i]
      if ((escaped === "D" || escaped === "S" || escaped === "W") && !repeated(source[i + 1])) return false
    } else if (c === "[") {
      const negated = source[i + 1] === "^"
      while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1
      if (negated && !repeated(source[i + 1])) return false
    } else if (c === "." && !repeated(source[i + 1])) {
      return false
    }
  }
  return true
}

/** A flagless pattern the document can carry as is (see {@link isUnicodeSafePattern}). */
export const exportablePattern = (check: Parameters<typeof patternOf>[0]): string | undefined => {
  const pattern = patternOf(check)
  return pattern !== undefined && pattern.flags === "" && isUnicodeSafePattern(pattern.source) ? pattern.source : undefined
}

/**
 * A copy of a representation document in which every flagless
 * `Schema.isPattern` check that means the same with Unicode semantics emits
 * its `pattern` (Effect's compiler exports only patterns with the `u` flag).
 */
export const withPatterns = (node: unknown, copies: Map<object, unknown>): unknown => {
  if (typeof node !== "object" || node === null) return node
  const known = copies.get(node)
  if (known !== undefined) return known
  if (Array.isArray(node)) {
    const copy: Array<unknown> = []
    copies.set(node, copy)
    for (const item of node) copy.push(withPatterns(item, copies))
    return copy
  }
  if (Object.getPrototypeOf(node) !== Object.prototype) return node
  const copy: Record<string, unknown> = {}
  copies.set(node, copy)
  for (const [key, value] of Object.entries(node)) copy[key] = withPatterns(value, copies)
  const record = node as { readonly _tag?: unknown; readonly representation?: unknown; readonly annotations?: object }
  const pattern = record._tag === "Filter" ? exportablePattern(record) : undefined
  if (pattern !== undefined) copy.annotations = { ...(copy.annotations as object), toJsonSchema: () => ({ pattern }) }
  return copy
}
