/**
 * JSON Schema (draft 2020-12) documents of the gateway's wire schemas,
 * derived from the same Effect `Schema` values that decode requests, so the
 * published contract cannot drift from the validation (gateway-api.md
 * "Runtime and diagnostics"; docs/operations.md "Contracts").
 *
 * A document describes the ENCODED side of the schema the gateway decodes
 * with (an HTTP body: the endpoint's JSON codec of its schema; a query or
 * path: its string codec; a WebSocket payload: the schema itself), compiled
 * by Effect (`SchemaRepresentation`), with two corrections:
 *
 * - a flagless `Schema.isPattern` keeps its `pattern` when it means the same
 *   under JSON Schema's Unicode semantics ({@link isUnicodeSafePattern});
 *   Effect exports only `u` patterns, and the gateway's are ASCII;
 * - a plain number is `{"type": "number"}`, without the canonical codec's
 *   `"NaN"`/`"Infinity"` strings (request schemas use integers or finite
 *   numbers; the catalog test would catch one that does not).
 *
 * Some checks have no JSON Schema form: a custom filter (a workflow key's
 * grammar, a JSON size bound, a cross-field rule), a check that runs after a
 * transformation (`limit` parsed from a query string, then bounded), a record
 * whose keys are checked, a declaration with its own decoder.
 * {@link decoderOnlyChecks} finds them and the document lists them under
 * {@link DECODER_ONLY_KEYWORD}: where they apply, a value the document
 * accepts may still be answered 400 `invalid_request` (naming the field).
 * Everywhere else the document and the gateway agree (test/contracts checks
 * it with a JSON Schema validator on generated and mutated samples).
 *
 * @module
 */
import { type JsonSchema, type Schema, SchemaRepresentation } from "effect"
import { DECODER_ONLY_KEYWORD, decoderOnlyChecks } from "./decoderOnly.ts"
import { withPatterns } from "./patterns.ts"

export { DECODER_ONLY_KEYWORD, type DecoderOnlyCheck, decoderOnlyChecks, type DecoderOnlyReason } from "./decoderOnly.ts"
export { isUnicodeSafePattern } from "./patterns.ts"

/** `$schema` of every document. */
export const JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

type Json = JsonSchema.JsonSchema

const isNumberEncoding = (anyOf: unknown): boolean => {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return false
  const [number, special] = anyOf as [Json, Json]
  return JSON.stringify(number) === `{"type":"number"}` && Object.keys(special).length === 2 && special.type === "string" &&
    Array.isArray(special.enum) && special.enum.length === 3 && ["NaN", "Infinity", "-Infinity"].every((s) => (special.enum as Array<unknown>).includes(s))
}

/** Rewrites, in place, the canonical codec's number encoding (`number | "NaN" | …`) to `{"type": "number"}`. */
const plainNumbers = (node: unknown): void => {
  if (Array.isArray(node)) return node.forEach(plainNumbers)
  if (typeof node !== "object" || node === null) return
  const schema = node as Json
  if (isNumberEncoding(schema.anyOf)) {
    delete schema.anyOf
    schema.type = "number"
  }
  for (const value of Object.values(schema)) plainNumbers(value)
}

/** What {@link toJsonSchemaDocument} stamps on a document. */
export interface DocumentIdentity {
  /** `$id`: the document's URL. */
  readonly id: string
  /** `title`: the schema's catalog name. */
  readonly title: string
}

/**
 * The JSON Schema document of `schema`'s encoded side: `$schema`, `$id`,
 * `title`, the schema (its root definition inlined when nothing else refers
 * to it), `$defs`, and {@link DECODER_ONLY_KEYWORD} when some checks have no
 * JSON Schema form. Self-contained (`$ref`s point into its own `$defs`).
 * Throws when the compiler cannot represent the schema (a programming error,
 * reported by the catalog as `contracts_unavailable`).
 */
export const toJsonSchemaDocument = (schema: Schema.Top, identity: DocumentIdentity): Json => {
  const representation = withPatterns(SchemaRepresentation.toRepresentation(schema.ast), new Map())
  const compiled = SchemaRepresentation.toJsonSchemaDocument(representation as SchemaRepresentation.Document)
  // A private deep copy: the compiler shares sub-objects between places.
  const copy = JSON.parse(JSON.stringify({ schema: compiled.schema, defs: compiled.definitions })) as {
    schema: Json
    defs: Record<string, Json>
  }
  plainNumbers(copy)
  let root = copy.schema
  const rootRef = typeof root.$ref === "string" && Object.keys(root).length === 1 ? root.$ref : undefined
  if (rootRef !== undefined && rootRef.startsWith("#/$defs/")) {
    const key = decodeURIComponent(rootRef.slice("#/$defs/".length)).replaceAll("~1", "/").replaceAll("~0", "~")
    const referenced = JSON.stringify(copy.defs).includes(JSON.stringify(rootRef))
    if (!referenced && copy.defs[key] !== undefined) {
      root = copy.defs[key]
      delete copy.defs[key]
    }
  }
  const { title: _title, ...body } = root
  const marks = decoderOnlyChecks(schema)
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: identity.id,
    title: identity.title,
    ...body,
    ...(Object.keys(copy.defs).length > 0 ? { $defs: copy.defs } : {}),
    ...(marks.length > 0 ? { [DECODER_ONLY_KEYWORD]: marks } : {})
  }
}
