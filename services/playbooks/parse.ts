/**
 * One `playbook.yml` from text to a compiled playbook (issue 13 §1;
 * docs/playbooks.md "Files"): YAML 1.2 through the `yaml` package (duplicate
 * keys are errors, at most 100 aliases, one document), the manifest decoded
 * strictly (`PlaybookManifest`, unknown keys are errors), then compiled
 * (`compile.ts`). A failure carries one message and, when the offending
 * node is known, its 1-based line.
 *
 * @module
 */
import { Result, SchemaIssue, SchemaParser } from "effect"
import { isMap, isSeq, isScalar, LineCounter, type Node as YamlNode, parseDocument } from "yaml"
import { formatIssue } from "../shared/decode.ts"
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

const decodeManifest = SchemaParser.decodeUnknownResult(PlaybookManifest, {
  errors: "first",
  onExcessProperty: "error",
  reportInput: true
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

const firstLine = (message: string): string => message.split("\n")[0]!.trim()

/** Parses, decodes and compiles one playbook file's text. */
export const parsePlaybook = (text: string): Result.Result<ParsedPlaybook, ParseFailure> => {
  const counter = new LineCounter()
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: false })
  const yamlError = doc.errors[0]
  if (yamlError !== undefined) {
    const line = yamlError.linePos?.[0].line ?? counter.linePos(yamlError.pos[0]).line
    return Result.fail({ message: `invalid YAML: ${firstLine(yamlError.message)}`, line: line > 0 ? line : undefined })
  }
  let content: unknown
  try {
    content = doc.toJS({ maxAliasCount: 100 })
  } catch (error) {
    return Result.fail({ message: `invalid YAML: ${firstLine(error instanceof Error ? error.message : String(error))}` })
  }
  const decoded = decodeManifest(content)
  if (Result.isFailure(decoded)) {
    const path = issuePath(decoded.failure).issues[0]?.path ?? []
    return Result.fail({ message: formatIssue(decoded.failure, "playbook"), line: lineAt(doc.contents, path, counter) })
  }
  const compiled = compilePlaybook(decoded.success)
  if (Result.isFailure(compiled)) {
    return Result.fail({ message: compiled.failure.message, line: lineAt(doc.contents, compiled.failure.path, counter) })
  }
  return Result.succeed({ ...compiled.success, manifest: decoded.success, id_line: lineAt(doc.contents, ["id"], counter) })
}
