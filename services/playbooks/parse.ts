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
import { formatIssue, formatPath } from "../shared/decode.ts"
import { keyOf, lineAt, loadYaml } from "../shared/yaml.ts"
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
  const loaded = loadYaml(text)
  if (Result.isFailure(loaded)) return Result.fail({ message: `invalid YAML: expected ${loaded.failure.expected}`, line: loaded.failure.line })
  const { content, root, counter } = loaded.success
  const decoded = decodeManifest(content)
  if (Result.isFailure(decoded)) {
    const path = (issuePath(decoded.failure).issues[0]?.path ?? []).map(keyOf)
    return Result.fail({ message: describeIssue(decoded.failure, path, content), line: lineAt(root, path, counter) })
  }
  const compiled = compilePlaybook(decoded.success)
  if (Result.isFailure(compiled)) {
    return Result.fail({ message: compiled.failure.message, line: lineAt(root, compiled.failure.path, counter) })
  }
  return Result.succeed({ ...compiled.success, manifest: decoded.success, id_line: lineAt(root, ["id"], counter) })
}
