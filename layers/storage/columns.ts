/**
 * Column schemas for row schemas, and the column kind derived from a field
 * schema (layers/storage/table.ts; docs/operations.md "Backup and restore").
 * A repository's row schema says how each column is read; the kind says how
 * its values travel in a snapshot bundle (services/snapshots/values.ts).
 *
 * A field's kind comes from its schema where that is unambiguous:
 * - a string or string literals → `text`;
 * - a number or bigint (`Schema.Int`, the dialects' `number | bigint`) → `integer`;
 * - a boolean, alone or with the 1/0 number SQLite returns → `boolean`;
 * - text the row schema parses into a value (`Schema.fromJsonString(…)`) → `json`;
 * - `NullOr(x)` → the kind of `x`.
 *
 * Where the schema alone cannot say, the field uses one of the column
 * schemas below, which carry the kind as an annotation ({@link COLUMN_KIND}):
 * {@link TimestampColumn} (ISO text), {@link JsonTextColumn} (JSON the
 * repository reads as text), {@link serialColumn} (a generated id) and
 * {@link HashedTextColumn} (text a hash covers, whose exact bytes must
 * travel). They decode exactly as the plain schema they annotate.
 *
 * @module
 */
import { Schema, SchemaAST } from "effect"

/**
 * How a column's values travel in a bundle (services/snapshots/values.ts):
 * - `text`: a JSON string;
 * - `integer`: a JSON number when it is a safe integer (|n| ≤ 2^53 − 1),
 *   else a decimal string (never a rounded number);
 * - `serial`: an `integer` the database generates (AUTOINCREMENT, identity);
 *   its counter is repaired after an import;
 * - `boolean`: `true` / `false` (stored as 1/0 on SQLite);
 * - `json`: the parsed JSON value (stored as text, or json/jsonb);
 * - `timestamp`: an ISO-8601 UTC string with milliseconds.
 * SQL NULL is JSON `null` in every kind.
 *
 * Columns a hash is taken over keep the kind `text`, so their exact bytes
 * travel (`audit_events.action`, the canonical JSON its `action_sha256` is
 * the digest of, and `audit_events.occurred_at`, part of `event_hash`).
 */
export type ColumnKind = "text" | "integer" | "serial" | "boolean" | "json" | "timestamp"

/** The annotation key a column schema carries its {@link ColumnKind} under. */
export const COLUMN_KIND = "svc/columnKind"

/** `schema` annotated with the column kind `kind` (decodes exactly as `schema`). */
export const withColumnKind = <S extends Schema.Top>(schema: S, kind: ColumnKind): S["Rebuild"] =>
  schema.annotate({ [COLUMN_KIND]: kind })

/** A generated id (AUTOINCREMENT, identity): `schema` (e.g. `Schema.Int`) with the kind `serial`. */
export const serialColumn = <S extends Schema.Top>(schema: S): S["Rebuild"] => withColumnKind(schema, "serial")

/** An ISO-8601 UTC time stored as text (`2026-11-23T21:27:34.215Z`): kind `timestamp`. */
export const TimestampColumn = withColumnKind(Schema.String, "timestamp")

/** JSON the repository reads as text, without parsing it: kind `json`. */
export const JsonTextColumn = withColumnKind(Schema.String, "json")

/**
 * Text a hash is taken over (a digest covers its exact bytes): kind `text`,
 * stated so that no one turns it into a timestamp or JSON column.
 */
export const HashedTextColumn = withColumnKind(Schema.String, "text")

const annotatedKind = SchemaAST.resolveAt<ColumnKind>(COLUMN_KIND)

/**
 * The column kind of a field schema's AST (see the module doc), or
 * `undefined` when the schema alone does not say (then the field needs a
 * column schema or {@link withColumnKind}).
 */
export const columnKindOf = (ast: SchemaAST.AST): ColumnKind | undefined => {
  const annotated = annotatedKind(ast)
  if (annotated !== undefined) return annotated
  if (ast.encoding !== undefined) {
    // Stored as text, decoded into something that is not a scalar column value: parsed JSON.
    return SchemaAST.toEncoded(ast)._tag === "String" && columnKindOf(SchemaAST.toType(ast)) === undefined ? "json" : undefined
  }
  switch (ast._tag) {
    case "String":
      return "text"
    case "Number":
    case "BigInt":
      return "integer"
    case "Boolean":
      return "boolean"
    case "Literal":
      return typeof ast.literal === "string" ? "text" : undefined
    case "Union": {
      const kinds = new Set(ast.types.filter((member) => member._tag !== "Null").map(columnKindOf))
      if (kinds.size === 1) return [...kinds][0]
      // A boolean read as `boolean` (PostgreSQL) or 1/0 (SQLite).
      if (kinds.size === 2 && kinds.has("boolean") && kinds.has("integer")) return "boolean"
      return undefined
    }
    default:
      return undefined
  }
}
