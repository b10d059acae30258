/**
 * Small request-field schemas shared by the subsystems' `schema.ts` files,
 * so a bound reads the same everywhere and its message is written once.
 *
 * @module
 */
import { Schema } from "effect"

/** A string of 1 to `max` characters; messages "a non-empty string" / "a non-empty string of at most <max> characters". */
export const nonEmptyText = (max: number) =>
  Schema.String.check(
    Schema.isMinLength(1, { expected: "a non-empty string" }),
    Schema.isMaxLength(max, { expected: `a non-empty string of at most ${max} characters` })
  )

/** An integer from `minimum` to `maximum` (inclusive); message "an integer from <minimum> to <maximum>". */
export const intBetween = (minimum: number, maximum: number) =>
  Schema.Int.check(Schema.isBetween({ minimum, maximum }, { expected: `an integer from ${minimum} to ${maximum}` }))

const unexpected = Schema.Never.annotate({ message: "unexpected field" })

/**
 * `Schema.Struct(fields)` that rejects unknown keys (`<key>: unexpected
 * field`) whatever the caller's parse options: an index signature over every
 * other key whose value can only fail. The gateway's request decoder (and
 * `Schema.toCodecJson`, OpenAPI, JSON Schema) see a plain structure. The
 * type is the struct's (no key beside `fields` ever decodes).
 */
export const StrictStruct = <const F extends Schema.Struct.Fields>(
  fields: F
): Schema.Codec<Schema.Struct<F>["Type"], Schema.Struct<F>["Encoded"]> => {
  const known = new Set(Object.keys(fields))
  const other = Schema.String.check(Schema.makeFilter((key: string) => !known.has(key)))
  return Schema.StructWithRest(Schema.Struct(fields), [Schema.Record(other, unexpected)]) as unknown as Schema.Codec<
    Schema.Struct<F>["Type"],
    Schema.Struct<F>["Encoded"]
  >
}

/**
 * A UUID of any version, either case (`crypto.randomUUID()` ids: artifacts, canvas pages, memory items, work records).
 * Spelled without the `i` flag so that JSON Schema (the contracts catalog, OpenAPI) carries it as a `pattern`.
 */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/** True when `u` is a string {@link UUID_PATTERN} matches. */
export const isUuid = (u: unknown): u is string => typeof u === "string" && UUID_PATTERN.test(u)
