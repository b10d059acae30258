/**
 * Where a problem sits in a YAML file: the 1-based line of a node along a
 * decoding issue's path, and a fixed description per YAML parser error code
 * (the parser's own messages quote the source). Shared by the files the
 * gateway reads from disk (playbooks, the scripted agent provider's scripts).
 *
 * @module
 */
import { Result } from "effect"
import { type ErrorCode, isMap, isScalar, isSeq, LineCounter, type Node as YamlNode, parseDocument } from "yaml"

/** A path segment's key (Effect's issue paths hold keys or `{key}` segments). */
export const keyOf = (segment: PropertyKey | { readonly key: PropertyKey }): PropertyKey =>
  typeof segment === "object" && segment !== null ? segment.key : segment

/**
 * The 1-based line of the deepest node of `doc` along `path` (for a mapping
 * key, the line of the key itself), or `undefined` when the document has no
 * node there.
 */
export const lineAt = (
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
export const YAML_EXPECTED: Record<ErrorCode, string> = {
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

/** A YAML file's text loaded: its content as JavaScript, and where each node sits (for {@link lineAt}). */
export interface LoadedYaml {
  readonly content: unknown
  readonly root: unknown
  readonly counter: LineCounter
}

/** Why a YAML text did not load: what the parser expected and, when known, the 1-based line. */
export interface YamlLoadFailure {
  readonly expected: string
  readonly line: number | undefined
}

/** Most alias expansions a document may make (a "billion laughs" file is refused). */
export const MAX_ALIAS_COUNT = 100

/**
 * Parses `text` (keys unique in each mapping) and converts it to JavaScript,
 * keeping the line counter; a syntax error or too many alias expansions is a
 * {@link YamlLoadFailure}.
 */
export const loadYaml = (text: string): Result.Result<LoadedYaml, YamlLoadFailure> => {
  const counter = new LineCounter()
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: false })
  const yamlError = doc.errors[0]
  if (yamlError !== undefined) {
    const line = yamlError.linePos?.[0].line ?? counter.linePos(yamlError.pos[0]).line
    return Result.fail({ expected: YAML_EXPECTED[yamlError.code] ?? YAML_EXPECTED.IMPOSSIBLE, line: line > 0 ? line : undefined })
  }
  try {
    return Result.succeed({ content: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), root: doc.contents, counter })
  } catch {
    return Result.fail({ expected: `at most ${MAX_ALIAS_COUNT} alias expansions, each naming an anchor defined before it`, line: undefined })
  }
}
