/**
 * One `playbook.yml` from text to a compiled playbook (issue 13 §1;
 * docs/playbooks.md "Files"): YAML 1.2 through the `yaml` package (duplicate
 * keys are errors, at most 100 aliases, one document), the manifest decoded
 * strictly (`PlaybookManifest`, unknown keys are errors), then compiled
 * (`compile.ts`). A failure carries one message and, when the offending
 * node is known, its 1-based line.
 *
 * A message never quotes the file (issue 20 §5: a load error is served to
 * operator.read, and a file may not be a playbook at all): it says where
 * (the manifest path and the line) and what was expected. The YAML parser's
 * own messages, which quote the source, are replaced by a fixed text per
 * error code; schema issues are formatted without their input (only its
 * type, for a type mismatch), and an unexpected key is reported at its
 * parent's path (the key itself is on the line reported).
 *
 * @module
 */
import { Result, SchemaIssue, SchemaParser } from "effect"
import { type ErrorCode, isMap, isSeq, isScalar, LineCounter, type Node as YamlNode, parseDocument } from "yaml"
import { formatIssue, formatPath } from "../shared/decode.ts"
import { type CompiledPlaybook, compilePlaybook } from "./compile.ts"
import { PlaybookManifest } from "./schema.ts"

/** Largest `playbook.yml` read, in bytes (1 MiB). */
export const MAX_PLAYBOOK_BYTES = 1_048_576

/** A file that did not load: why, and where when known. */
export interface ParseFailure {
  readonly message: string
  /** 1-based. */
  readonly line?: number | undefined
}

/** A file that loaded: its manifest, compiled steps, and the line of its `id` (for a duplicate-id report). */
export interface ParsedPlaybook extends CompiledPlaybook {
  readonly manifest: PlaybookManifest
  readonly id_line: number | undefined
}

// No `reportInput`: a message must not quote the file.
const decodeManifest = SchemaParser.decodeUnknownResult(PlaybookManifest, {
  errors: "first",
  onExcessProperty: "error"
})
const issuePath = SchemaIssue.makeFormatterStandardSchemaV1()

const keyOf = (segment: PropertyKey | { readonly key: PropertyKey }): PropertyKey =>
  typeof segment === "object" && segment !== null ? segment.key : segment

/**
 * The 1-based line of the deepest node of `doc` along `path` (for a mapping
 * key, the line of the key itself), or `undefined` when the document has no
 * node there.
 */
const lineAt = (
  root: unknown,
  path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>,
  counter: LineCounter
): number | undefined => {
  const lineOf = (node: YamlNode | null | undefined) =>
    node?.range ? counter.linePos(node.range[0]).line || 1 : undefined
  let node = root as YamlNode | null | undefined
  let line = lineOf(node)
  for (const segment of path) {
    const key = keyOf(segment)
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) ? String(p.key.value) === String(key) : false)
      if (pair === undefined) break
      line = lineOf(pair.key as YamlNode) ?? line
      node = pair.value as YamlNode | null
    } else if (isSeq(node) && typeof key === "number") {
      const item = node.items[key] as YamlNode | undefined
      if (item === undefined) break
      line = lineOf(item) ?? line
      node = item
    } else {
      break
    }
  }
  return line
}

/** What the YAML parser expected, by its error code (its own messages quote the source). */
const YAML_EXPECTED: Record<ErrorCode, string> = {
  ALIAS_PROPS: "an alias without an anchor or a tag",
  BAD_ALIAS: "an alias naming an anchor defined before it",
  BAD_DIRECTIVE: "a valid %YAML or %TAG directive",
  BAD_DQ_ESCAPE: "valid escape sequences in a double-quoted string",
  BAD_INDENT: "consistent indentation",
  BAD_PROP_ORDER: "an anchor or a tag before its value",
  BAD_SCALAR_START: "a value not starting with a reserved character (@, `, %, | or > need quotes)",
  BLOCK_AS_IMPLICIT_KEY: "a plain key before ':'",
  BLOCK_IN_FLOW: "no block collection inside [ ] or { }",
  DUPLICATE_KEY: "unique keys in each mapping",
  IMPOSSIBLE: "a well-formed document",
  KEY_OVER_1024_CHARS: "keys of at most 1024 characters",
  MISSING_CHAR: "a closing quote or bracket",
  MULTILINE_IMPLICIT_KEY: "each key on one line",
  MULTIPLE_ANCHORS: "at most one anchor per value",
  MULTIPLE_DOCS: "a single YAML document",
  MULTIPLE_TAGS: "at most one tag per value",
  NON_STRING_KEY: "string keys",
  RESOURCE_EXHAUSTION: "fewer alias expansions",
  TAB_AS_INDENT: "indentation with spaces, not tabs",
  TAG_RESOLVE_FAILED: "only standard YAML tags",
  UNEXPECTED_TOKEN: "a key, a value or a list item here",
  BAD_COLLECTION_TYPE: "a collection of the kind its tag names"
}

/** The value of `root` along `path`, when there is one. */
const valueAt = (root: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let value = root
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined
    value = (value as Record<PropertyKey, unknown>)[key]
  }
  return value
}

/** The type of a value, never the value. */
const typeOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "a list" : typeof value === "object" ? "a mapping" : `a ${typeof value}`

/** The first leaf of an issue tree (decoding stops at the first problem). */
const firstLeaf = (issue: SchemaIssue.Issue): SchemaIssue.Issue => {
  if ("issues" in issue && issue.issues.length > 0) return firstLeaf(issue.issues[0]!)
  if ("issue" in issue && issue.issue !== undefined) return firstLeaf(issue.issue)
  return issue
}

/**
 * `<path>: <what was expected>` for a decoding failure, quoting nothing of
 * the file (see the module documentation).
 */
const describeIssue = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>, content: unknown): string => {
  const formatted = formatIssue(issue, "playbook")
  const expected = formatted.slice(formatPath(path, "playbook").length + 2)
  const leaf = firstLeaf(issue)
  if (leaf._tag === "UnexpectedKey") return `${formatPath(path.slice(0, -1), "playbook")}: unexpected field`
  const found = leaf._tag === "InvalidType" ? `, got ${typeOf(valueAt(content, path))}` : ""
  return `${formatPath(path, "playbook")}: ${expected}${found}`
}

/** Parses, decodes and compiles one playbook file's text. */
export const parsePlaybook = (text: string): Result.Result<ParsedPlaybook, ParseFailure> => {
  const counter = new LineCounter()
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: false })
  const yamlError = doc.errors[0]
  if (yamlError !== undefined) {
    const line = yamlError.linePos?.[0].line ?? counter.linePos(yamlError.pos[0]).line
    const expected = YAML_EXPECTED[yamlError.code] ?? YAML_EXPECTED.IMPOSSIBLE
    return Result.fail({ message: `invalid YAML: expected ${expected}`, line: line > 0 ? line : undefined })
  }
  let content: unknown
  try {
    content = doc.toJS({ maxAliasCount: 100 })
  } catch {
    return Result.fail({ message: "invalid YAML: expected at most 100 alias expansions, each naming an anchor defined before it" })
  }
  const decoded = decodeManifest(content)
  if (Result.isFailure(decoded)) {
    const path = (issuePath(decoded.failure).issues[0]?.path ?? []).map(keyOf)
    return Result.fail({ message: describeIssue(decoded.failure, path, content), line: lineAt(doc.contents, path, counter) })
  }
  const compiled = compilePlaybook(decoded.success)
  if (Result.isFailure(compiled)) {
    return Result.fail({ message: compiled.failure.message, line: lineAt(doc.contents, compiled.failure.path, counter) })
  }
  return Result.succeed({ ...compiled.success, manifest: decoded.success, id_line: lineAt(doc.contents, ["id"], counter) })
}
