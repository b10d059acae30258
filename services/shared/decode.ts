/**
 * Boundary decoding helpers shared by every transport (HTTP, WebSocket, CLI).
 *
 * - {@link makeDecoder} compiles a schema decoder once and turns a failure
 *   into ONE concise, human-readable message that names the offending field
 *   path, e.g. `spend.amount_minor_units: expected a non-negative integer, got -5`.
 * - {@link parseJsonBody} turns raw request text into JSON, distinguishing an
 *   empty body from malformed JSON (the original product answered 500 for
 *   malformed JSON; we answer a 400 with one of these messages).
 *
 * Results use effect's `Result` (`Result.succeed` / `Result.fail`), so callers
 * can branch with `Result.isSuccess`, use `Result.match`, or `yield*` a Result
 * inside `Effect.gen` (a failure then fails the Effect with the string).
 *
 * Error messages are produced with Effect's own issue formatter
 * (`SchemaIssue.makeFormatterStandardSchemaV1`, which flattens the issue tree
 * into `{ path, message }` entries); we only supply hooks for the wording:
 *
 * - a type mismatch reads `expected <what>, got <input>`, where `<what>` is the
 *   schema's `expected` annotation (on the schema or its last check) or a plain
 *   English name of the type ("a string", "a number", "an object", ...);
 * - a failed check reads `expected <check's expected annotation>, got <input>`;
 * - a missing key reads `missing required field`;
 * - `<input>` is shortened: strings are quoted and cut at 40 characters, arrays
 *   and objects are described as "an array" / "an object", so a message never
 *   echoes a large payload.
 *
 * The path is printed as `a.b[1].c`; an empty path (the input itself) prints
 * the decoder's label (default `body`): `body: expected a JSON object, got an array`.
 *
 * Parse options: `errors: "first"` (one message, cheapest), `onExcessProperty:
 * "ignore"` (unknown keys are stripped, never rejected) and `reportInput: true`
 * (only read while formatting a failure).
 *
 * @module
 */
import { Result, type Schema, type SchemaAST, SchemaIssue, SchemaParser } from "effect"

/** A compiled decoder: unknown input in, decoded value or one human message out. */
export type Decoder<A> = (input: unknown) => Result.Result<A, string>

/** Options of {@link makeDecoder}. */
export interface DecoderOptions {
  /** Name printed for an issue at the root of the input. Default: `"body"`. */
  readonly label?: string | undefined
  /**
   * Whether a message may quote the offending input (`…, got "x"`). Default
   * true; false for inputs holding material no message may repeat (stored
   * rows: digests, ciphertext): the diagnostic parse then runs without
   * `reportInput`, so no wording can quote it.
   */
  readonly echoInput?: boolean | undefined
}

/** Default parse options plus `errors: "first"` (stop at the first problem): the fast path. */
const FAST_OPTIONS: SchemaAST.ParseOptions = { errors: "first" }

/**
 * The diagnostic parse options: the first issue, unknown keys ignored, the
 * input kept in the issue (for `got …`). HTTP path and query decoding uses
 * them directly (src/http/api/index.ts), so its failures format like
 * {@link makeDecoder}'s.
 */
export const DIAGNOSTIC_PARSE_OPTIONS: SchemaAST.ParseOptions = {
  errors: "first",
  onExcessProperty: "ignore",
  reportInput: true
}

const PARSE_OPTIONS = DIAGNOSTIC_PARSE_OPTIONS

const QUIET_OPTIONS: SchemaAST.ParseOptions = { ...PARSE_OPTIONS, reportInput: false }

/**
 * Builds a decoder for `schema`. Call it ONCE (at module load) and reuse the
 * returned function: the schema parser is resolved up front, and on success
 * the parser's own `Result` is returned as is (no extra allocation or work).
 *
 * @example
 * const decodePolicyCheck = makeDecoder(PolicyCheckRequest)
 * decodePolicyCheck({ spend: { amount_minor_units: -5, currency: "EUR" } })
 * // Result.fail("spend.amount_minor_units: expected a non-negative integer, got -5")
 */
export const makeDecoder = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  options?: DecoderOptions
): Decoder<S["Type"]> => {
  const label = options?.label ?? "body"
  // Hot path: the parser with default options (the fastest, and the one the
  // JIT compiler specialises). Only a failing input is parsed a second time,
  // with the diagnostic options, to build the message.
  const parse = SchemaParser.decodeUnknownResult(schema, FAST_OPTIONS)
  const diagnose = SchemaParser.decodeUnknownResult(schema, options?.echoInput === false ? QUIET_OPTIONS : PARSE_OPTIONS)
  return (input) => {
    const result = parse(input)
    // Success<A, Issue> and Success<A, string> are the same object at runtime;
    // only the phantom error type differs.
    if (Result.isSuccess(result)) return result as unknown as Result.Result<S["Type"], string>
    const detailed = diagnose(input)
    return Result.fail(formatIssue(Result.isFailure(detailed) ? detailed.failure : result.failure, label))
  }
}

// ---------------------------------------------------------------------------
// Issue formatting
// ---------------------------------------------------------------------------

const MAX_STRING_INPUT = 40
const MAX_MESSAGE = 240

/** Short description of an offending input value, never echoing a large payload. */
export const describeInput = (input: unknown): string => {
  switch (typeof input) {
    case "string":
      return JSON.stringify(input.length > MAX_STRING_INPUT ? `${input.slice(0, MAX_STRING_INPUT)}…` : input)
    case "number":
    case "boolean":
      return String(input)
    case "bigint":
      return `${input}n`
    case "undefined":
      return "undefined"
    case "object":
      return input === null ? "null" : Array.isArray(input) ? "an array" : "an object"
    default:
      return `a ${typeof input}`
  }
}

const got = (issue: SchemaIssue.Issue): string =>
  SchemaIssue.hasInput(issue) ? `, got ${describeInput(issue.input)}` : ""

/** The `expected` annotation of an AST node (its last check's annotations win, as in Effect). */
const expectedAnnotation = (ast: SchemaAST.AST): string | undefined => {
  const annotations = ast.checks ? ast.checks[ast.checks.length - 1].annotations : ast.annotations
  const expected = annotations?.expected
  return typeof expected === "string" ? expected : undefined
}

/** Plain-English name of a type, for nodes without an `expected` annotation. */
const typeName = (ast: SchemaAST.AST): string | undefined => {
  switch (ast._tag) {
    case "String":
      return "a string"
    case "Number":
      return "a number"
    case "Boolean":
      return "a boolean"
    case "BigInt":
      return "a bigint"
    case "Objects":
      return "an object"
    case "Arrays":
      return "an array"
    case "Null":
      return "null"
    case "Literal":
      return JSON.stringify(ast.literal)
    default:
      return undefined
  }
}

const leafHook: SchemaIssue.LeafHook = (issue) => {
  switch (issue._tag) {
    case "MissingKey": {
      const message = issue.annotations?.messageMissingKey
      return typeof message === "string" ? message : "missing required field"
    }
    case "InvalidType": {
      const message = issue.ast.annotations?.message
      if (typeof message === "string") return message
      const expected = expectedAnnotation(issue.ast) ?? typeName(issue.ast)
      return expected === undefined ? SchemaIssue.defaultLeafHook(issue) : `expected ${expected}${got(issue)}`
    }
    case "InvalidValue": {
      const message = issue.annotations?.message
      if (typeof message === "string") return message
      const expected = issue.annotations?.expected
      return `expected ${typeof expected === "string" ? expected : "a valid value"}${got(issue)}`
    }
    case "UnexpectedKey":
      return "unexpected field"
    default:
      return SchemaIssue.defaultLeafHook(issue)
  }
}

const checkHook: SchemaIssue.CheckHook = (issue) => {
  const message = SchemaIssue.defaultCheckHook(issue)
  if (message !== undefined) return message
  const expected = issue.filter.annotations?.expected
  return typeof expected === "string" ? `expected ${expected}${got(issue)}` : undefined
}

const standardFormatter = SchemaIssue.makeFormatterStandardSchemaV1({ leafHook, checkHook })

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/** Formats a path as `spend.amount_minor_units` / `pii.categories[1]`; empty → `label`. */
export const formatPath = (
  path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>,
  label = "body"
): string => {
  if (path.length === 0) return label
  let out = ""
  for (const segment of path) {
    const key = typeof segment === "object" ? segment.key : segment
    if (typeof key === "number") out += `[${key}]`
    else if (typeof key === "string" && IDENTIFIER.test(key)) out += out === "" ? key : `.${key}`
    else out += `[${typeof key === "string" ? JSON.stringify(key) : String(key)}]`
  }
  return out
}

/**
 * Turns a schema issue into one line: `<path>: <message>`. Only the first
 * flattened issue is reported (decoders run with `errors: "first"`).
 */
export const formatIssue = (issue: SchemaIssue.Issue, label = "body"): string => {
  const first = standardFormatter(issue).issues[0]
  if (first === undefined) return `${label}: invalid value`
  const raw = first.message
  const message = raw.length > 0 ? raw[0].toLowerCase() + raw.slice(1) : "invalid value"
  const line = `${formatPath(first.path ?? [], label)}: ${message}`
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line
}

// ---------------------------------------------------------------------------
// JSON body parsing
// ---------------------------------------------------------------------------

const MAX_JSON_REASON = 120

/**
 * Parses a request body as JSON.
 *
 * - empty or whitespace-only text → `Result.fail("request body is empty")`
 * - invalid JSON → `Result.fail("malformed JSON: <parser reason, at most 120 chars>")`; the reason never
 *   quotes the body (V8 puts a snippet of the text in some messages, and a body may hold a secret)
 * - otherwise → `Result.succeed(value)` (any JSON value; shape checks belong to the decoder)
 *
 * The happy path is a single `JSON.parse`; the emptiness test only runs after a failure.
 */
/** The parser's reason without any quoted part of the input (`Unexpected token 's', "…" is not valid JSON`). */
const jsonErrorReason = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  const reason = message
    .replace(/,\s*[\s\S]*is not valid JSON$/, " (not valid JSON)")
    .replace(/^Unexpected token '[\s\S]'/, "Unexpected character")
  return reason.length > MAX_JSON_REASON ? `${reason.slice(0, MAX_JSON_REASON - 1)}…` : reason
}

export const parseJsonBody = (text: string): Result.Result<unknown, string> => {
  try {
    return Result.succeed(JSON.parse(text))
  } catch (error) {
    if (text.trim() === "") return Result.fail("request body is empty")
    return Result.fail(`malformed JSON: ${jsonErrorReason(error)}`)
  }
}
