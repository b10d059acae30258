/**
 * Value normalisation between the databases and a bundle (pure; tested
 * without a database). {@link toPortable} turns what a driver returns
 * (SQLite: number, bigint, string; PostgreSQL: number, bigint, boolean, Date,
 * parsed jsonb) into the portable form of its column kind; {@link toStored}
 * turns a portable value back into a parameter for the target dialect.
 *
 * On PostgreSQL every non-NULL value is bound as text with no declared type,
 * so the server converts it to the column's own type: the same bundle
 * imports into TEXT or jsonb, INTEGER or BIGINT, INTEGER or BOOLEAN columns.
 * On SQLite integers bind as numbers (bigint beyond 2^53), booleans as 1/0.
 *
 * Messages name what was expected, never the value (it may be a digest or
 * ciphertext).
 *
 * @module
 */
import { Result } from "effect"
import type { ColumnKind } from "../../layers/storage/columns.ts"

/** The database a value is read from or bound for. */
export type Dialect = "sqlite" | "postgres"

/** ISO-8601 in UTC with milliseconds: the form the gateway stores and a bundle carries. */
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
/** ISO-8601 date and time with an explicit zone (`Z` or `±hh:mm`): accepted on import. */
const ISO_ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/
const DECIMAL = /^-?\d{1,19}$/
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

const ok = Result.succeed
const fail = (problem: string) => Result.fail(problem)

/** A bigint as a JSON number when it is a safe integer, else as its decimal string. */
const portableInteger = (n: bigint): number | string =>
  n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString()

const readInteger = (value: unknown): Result.Result<number | string, string> => {
  if (typeof value === "number") return Number.isInteger(value) ? ok(Number.isSafeInteger(value) ? value : BigInt(value).toString()) : fail("not an integer")
  if (typeof value === "bigint") return ok(portableInteger(value))
  if (typeof value === "string" && DECIMAL.test(value)) return ok(portableInteger(BigInt(value)))
  return fail("not an integer")
}

const readTimestamp = (value: unknown): Result.Result<string, string> => {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? fail("not a valid time") : ok(value.toISOString())
  if (typeof value !== "string") return fail("not a timestamp")
  if (ISO_UTC_MS.test(value)) return ok(value)
  const ms = ISO_ZONED.test(value) ? Date.parse(value) : Number.NaN
  return Number.isNaN(ms) ? fail("not an ISO-8601 timestamp") : ok(new Date(ms).toISOString())
}

/**
 * The portable form of a stored value of kind `kind`; SQL NULL is `null`.
 * Fails with a short description when the stored value does not fit its
 * kind (corrupt storage).
 */
export const toPortable = (kind: ColumnKind, value: unknown): Result.Result<unknown, string> => {
  if (value === null || value === undefined) return ok(null)
  switch (kind) {
    case "text":
      return typeof value === "string"
        ? ok(value)
        : typeof value === "number" || typeof value === "bigint"
        ? ok(String(value))
        : fail("not text")
    case "integer":
    case "serial":
      return readInteger(value)
    case "boolean":
      if (typeof value === "boolean") return ok(value)
      if (value === 0 || value === 1 || value === 0n || value === 1n) return ok(value === 1 || value === 1n)
      return fail("not a boolean (0/1)")
    case "json":
      if (typeof value === "string") {
        try {
          return ok(JSON.parse(value))
        } catch {
          return fail("not JSON text")
        }
      }
      return typeof value === "object" && !(value instanceof Date) && !(value instanceof Uint8Array) ||
          typeof value === "number" || typeof value === "boolean"
        ? ok(value)
        : fail("not JSON")
    case "timestamp":
      return readTimestamp(value)
  }
}

/** What a column expects, for import messages. */
const EXPECTED: Readonly<Record<ColumnKind, string>> = {
  text: "a string",
  integer: "an integer (a number, or a decimal string beyond 2^53)",
  serial: "an integer (a number, or a decimal string beyond 2^53)",
  boolean: "true or false",
  json: "a JSON value",
  timestamp: "an ISO-8601 timestamp with a time zone (e.g. 2026-01-02T03:04:05.678Z)"
}

const storedInteger = (value: unknown, dialect: Dialect): Result.Result<unknown, string> => {
  let n: bigint
  if (typeof value === "number" && Number.isSafeInteger(value)) {
    return ok(dialect === "sqlite" ? value : String(value))
  } else if (typeof value === "string" && DECIMAL.test(value)) {
    n = BigInt(value)
    if (n < INT64_MIN || n > INT64_MAX) return fail(`expected ${EXPECTED.integer} within 64 bits`)
  } else {
    return fail(`expected ${EXPECTED.integer}`)
  }
  return ok(dialect === "sqlite" ? (Number.isSafeInteger(Number(n)) && BigInt(Number(n)) === n ? Number(n) : n) : n.toString())
}

/**
 * The parameter to bind for a portable `value` of kind `kind` in `dialect`.
 * `notNull`: the target column is NOT NULL, so a JSON `null` is stored as
 * the JSON text `null` rather than SQL NULL (a bundle cannot tell the two
 * apart; nullable columns get SQL NULL). Fails with what was expected.
 */
export const toStored = (
  kind: ColumnKind,
  value: unknown,
  dialect: Dialect,
  notNull: boolean
): Result.Result<unknown, string> => {
  if (value === null || value === undefined) return ok(kind === "json" && notNull ? "null" : null)
  switch (kind) {
    case "text":
      return typeof value === "string" ? ok(value) : fail(`expected ${EXPECTED.text}`)
    case "integer":
    case "serial":
      return storedInteger(value, dialect)
    case "boolean":
      return typeof value === "boolean"
        ? ok(dialect === "sqlite" ? (value ? 1 : 0) : value ? "1" : "0")
        : fail(`expected ${EXPECTED.boolean}`)
    case "json":
      return ok(JSON.stringify(value))
    case "timestamp": {
      const ms = typeof value === "string" && ISO_ZONED.test(value) ? Date.parse(value) : Number.NaN
      return Number.isNaN(ms) ? fail(`expected ${EXPECTED.timestamp}`) : ok(new Date(ms).toISOString())
    }
  }
}
