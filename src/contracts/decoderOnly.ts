/**
 * The checks of a schema's decoder that its JSON Schema document cannot
 * express (docs/operations.md "Contracts", `x-decoder-only`): a custom
 * filter, a check on the decoded side of a transformation, a record whose
 * keys are checked, a declaration with its own decoder. Found by walking the
 * schema's AST along the path of the JSON instance.
 *
 * @module
 */
import { type Schema, SchemaAST } from "effect"
import { exportablePattern } from "./patterns.ts"

/**
 * Root keyword listing the {@link DecoderOnlyCheck}s of a document (absent
 * when there are none). An `x-` keyword: validators ignore it (ajv needs
 * `addKeyword` in strict mode).
 */
export const DECODER_ONLY_KEYWORD = "x-decoder-only"

/** Why a check is not in the document. */
export type DecoderOnlyReason =
  /** A filter without an exact JSON Schema form (a custom predicate, a RegExp flag JSON Schema cannot carry). */
  | "custom-check"
  /** A check with a JSON Schema form that runs on the decoded side of a transformation (a number parsed from a query string). */
  | "after-decoding"
  /**
   * A declaration decoded by its own code (e.g. a strict object that rejects unknown keys): the document
   * describes its structure when the declaration provides one, else accepts any JSON.
   */
  | "custom-decoder"

/** A check the gateway's decoder applies that the document cannot express. */
export interface DecoderOnlyCheck {
  /**
   * Where it applies, as a JSON Pointer into the instance; `*` stands for any
   * array item or record value, `""` for the whole value. A failure it
   * reports may name a field below this path (a cross-field rule on an object).
   */
  readonly path: string
  /** What the check expects (its `expected` annotation). */
  readonly check: string
  readonly reason: DecoderOnlyReason
}

const escapeToken = (key: string): string => key.replaceAll("~", "~0").replaceAll("/", "~1")

type AnyCheck = SchemaAST.Check<unknown>

const describe = (check: AnyCheck): string => {
  const annotations = check.annotations
  for (const key of ["expected", "description", "title"] as const) {
    const value = annotations?.[key]
    if (typeof value === "string" && value !== "") return value
  }
  return "a custom check"
}

/** The JSON type a check callback is compiled against (as the compiler passes it), when the node has one. */
const jsonType = (ast: SchemaAST.AST): string | undefined => {
  switch (ast._tag) {
    case "String":
    case "TemplateLiteral":
      return "string"
    case "Number":
      return "number"
    case "Boolean":
      return "boolean"
    case "Arrays":
      return "array"
    case "Objects":
      return "object"
    default:
      return undefined
  }
}

/**
 * A string length bound is exact but for its unit (JSON Schema counts code
 * points, Effect UTF-16 code units): documented once (docs/operations.md),
 * not marked on every string.
 */
const isStringLength = (type: string | undefined, fragment: unknown): boolean =>
  type === "string" && typeof fragment === "object" && fragment !== null && Object.keys(fragment).length > 0 &&
  Object.keys(fragment).every((key) => key === "minLength" || key === "maxLength")

/** The leaf checks of `check` the compiler cannot emit exactly for a node of JSON type `type`. */
const inexactChecks = (check: AnyCheck, type: string | undefined): ReadonlyArray<AnyCheck> => {
  if (exportablePattern(check) !== undefined) return []
  const callback = check.annotations?.toJsonSchema
  if (typeof callback === "function") {
    try {
      const output = (callback as (input: { type: string | undefined; schemas: [] }) => unknown)({ type, schemas: [] })
      return Array.isArray(output) && !isStringLength(type, output[0]) ? [check] : []
    } catch {
      return [check]
    }
  }
  return check._tag === "Filter" ? [check] : check.checks.flatMap((child) => inexactChecks(child as AnyCheck, type))
}

/** Marks `checks` of `ast`; `afterDecoding`: they run on the decoded side of a transformation. */
const markChecks = (ast: SchemaAST.AST, checks: ReadonlyArray<AnyCheck>, path: string, afterDecoding: boolean, out: Array<DecoderOnlyCheck>) => {
  const type = jsonType(ast)
  for (const check of checks) {
    const inexact = inexactChecks(check, type)
    for (const leaf of inexact) out.push({ path, check: describe(leaf), reason: "custom-check" })
    if (afterDecoding && inexact.length === 0) out.push({ path, check: describe(check), reason: "after-decoding" })
  }
}

const isJsonValue = (ast: SchemaAST.Declaration): boolean => {
  const representation = ast.annotations?.representation as { readonly id?: unknown } | undefined
  return representation?.id === "effect/schema/Json"
}

const describeDeclaration = (ast: SchemaAST.Declaration): string => {
  const expected = ast.annotations?.expected
  if (typeof expected === "string") return expected
  const inner = ast.typeParameters.length === 1 ? SchemaAST.resolveIdentifier(ast.typeParameters[0]) : undefined
  return SchemaAST.resolveIdentifier(ast) ?? (inner === undefined ? "a custom decoder" : `a custom decoder of ${inner}`)
}

/** Whether `check` compiles to exactly one `pattern` (the only key check the compiler turns into a selector). */
const emitsPatternOnly = (check: AnyCheck): boolean => {
  if (check._tag !== "Filter") return false
  if (exportablePattern(check) !== undefined) return true
  const callback = check.annotations?.toJsonSchema
  if (typeof callback !== "function") return false
  try {
    const output = (callback as (input: { type: string; schemas: [] }) => unknown)({ type: "string", schemas: [] })
    return typeof output === "object" && output !== null && !Array.isArray(output) &&
      Object.keys(output).length === 1 && typeof (output as { pattern?: unknown }).pattern === "string"
  } catch {
    return false
  }
}

/** Whether the JSON Schema compiler can turn a record's key schema into `patternProperties` selectors. */
const isPatternKey = (ast: SchemaAST.AST): boolean => {
  if (ast.encoding !== undefined) return false
  const checks = (ast.checks ?? []) as ReadonlyArray<AnyCheck>
  switch (ast._tag) {
    case "String":
      return checks.length === 0 || (checks.length === 1 && emitsPatternOnly(checks[0]))
    case "TemplateLiteral":
    case "Number":
      return checks.length === 0
    case "Union":
      return checks.length === 0 && ast.types.every(isPatternKey)
    default:
      return false
  }
}

const keyedEntries = (key: SchemaAST.AST): string => {
  const checks = ((key.checks ?? []) as ReadonlyArray<AnyCheck>).map(describe)
  return `entries whose keys are checked (${checks.length > 0 ? checks.join(", ") : "a transformed key"})`
}

const walk = (ast: SchemaAST.AST, path: string, out: Array<DecoderOnlyCheck>, seen: Set<SchemaAST.AST>): void => {
  if (ast.encoding !== undefined) {
    // The checks of the decoded side (and of intermediate forms) run after the transformation.
    const links = ast.encoding
    markChecks(ast, (ast.checks ?? []) as ReadonlyArray<AnyCheck>, path, true, out)
    for (const link of links.slice(0, -1)) markChecks(link.to, (link.to.checks ?? []) as ReadonlyArray<AnyCheck>, path, true, out)
    return walk(links[links.length - 1].to, path, out, seen)
  }
  markChecks(ast, (ast.checks ?? []) as ReadonlyArray<AnyCheck>, path, false, out)
  switch (ast._tag) {
    case "Declaration":
      // Any JSON value (`Schema.Unknown` through the JSON codec) is exactly `{}`; other declarations run their own code.
      if (!isJsonValue(ast)) out.push({ path, check: describeDeclaration(ast), reason: "custom-decoder" })
      return
    case "Objects":
      for (const property of ast.propertySignatures) walk(property.type, `${path}/${escapeToken(String(property.name))}`, out, seen)
      for (const index of ast.indexSignatures) {
        // Keys without a JSON Schema pattern cannot select their values: the document leaves such entries open.
        if (!isPatternKey(index.parameter)) out.push({ path: `${path}/*`, check: keyedEntries(index.parameter), reason: "custom-check" })
        walk(index.type, `${path}/*`, out, seen)
      }
      return
    case "Arrays":
      ast.elements.forEach((element, i) => walk(element, `${path}/${i}`, out, seen))
      for (const rest of ast.rest) walk(rest, `${path}/*`, out, seen)
      return
    case "Union":
      for (const member of ast.types) walk(member, path, out, seen)
      return
    case "Suspend":
      if (seen.has(ast)) return
      seen.add(ast)
      return walk(ast.thunk(), path, out, seen)
    default:
      return
  }
}

/**
 * The checks of `schema`'s decoder that its JSON Schema document cannot
 * express, deduplicated, in schema order.
 */
export const decoderOnlyChecks = (schema: Schema.Top): ReadonlyArray<DecoderOnlyCheck> => {
  const out: Array<DecoderOnlyCheck> = []
  walk(schema.ast, "", out, new Set())
  const seen = new Set<string>()
  return out.filter((mark) => {
    const key = `${mark.path}\u0000${mark.check}\u0000${mark.reason}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
