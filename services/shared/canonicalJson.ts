/**
 * Canonical JSON: the JSON Canonicalization Scheme (JCS, RFC 8785), the one
 * form every digest over a JSON value is taken of (the audit chain's
 * `action_sha256` and `event_hash`, the policy bundle's `sha256` and its
 * snapshots, the routing configuration's `config_sha256`, a plan's stored
 * `request_json`).
 *
 * - object members sorted by their names' UTF-16 code units (RFC 8785
 *   §3.2.3), at every level, whatever the names look like (`"10"` before
 *   `"9"`); arrays keep their order;
 * - numbers as ECMAScript writes them (`Number.prototype.toString`, §3.2.2.3:
 *   `1e+30`, `0.002`, `-0` as `0`); a non-finite number is refused;
 * - strings as `JSON.stringify` escapes them (§3.2.2.2), `true`, `false`,
 *   `null`; no whitespace;
 * - values that are not JSON are read as `JSON.stringify` reads them:
 *   `toJSON` is called (a `Date` is its ISO string), an `undefined`, function
 *   or symbol member is left out and reads as `null` in an array.
 *
 * Throws a `TypeError` for what has no canonical form: a non-finite number,
 * a `bigint`, a cycle, or a top-level value `JSON.stringify` would drop.
 *
 * @module
 */
import { sha256Hex } from "./sha256.ts"

/** What has no canonical form, and where (filled in, innermost last, as it propagates). */
class NoCanonicalForm extends Error {
  readonly path: Array<string> = []
}

/** `value` after `toJSON` and unboxing, as `JSON.stringify` sees it. */
const jsonView = (value: unknown, key: string): unknown => {
  if (typeof value !== "object" || value === null) return value
  let seen: unknown = value
  if (typeof (seen as { toJSON?: unknown }).toJSON === "function") seen = (seen as { toJSON: (key: string) => unknown }).toJSON(key)
  if (seen instanceof Number || seen instanceof String || seen instanceof Boolean) seen = seen.valueOf()
  return seen
}

/** The canonical text of `value`, or `undefined` for what JSON leaves out (undefined, a function, a symbol). */
const write = (value: unknown, key: string, ancestors: Set<object>): string | undefined => {
  const seen = jsonView(value, key)
  switch (typeof seen) {
    case "string":
      return JSON.stringify(seen)
    case "boolean":
      return seen ? "true" : "false"
    case "number":
      if (!Number.isFinite(seen)) throw new NoCanonicalForm(`is ${seen}, which JSON cannot hold`)
      return JSON.stringify(seen)
    case "bigint":
      throw new NoCanonicalForm("is a bigint, which JSON cannot hold")
    case "undefined":
    case "function":
    case "symbol":
      return undefined
  }
  if (seen === null) return "null"
  const object = seen as object
  if (ancestors.has(object)) throw new NoCanonicalForm("refers to itself")
  ancestors.add(object)
  let name = ""
  try {
    let text: string
    if (Array.isArray(object)) {
      text = "["
      for (let i = 0; i < object.length; i++) {
        name = String(i)
        text += (i === 0 ? "" : ",") + (write(object[i], name, ancestors) ?? "null")
      }
      text += "]"
    } else {
      text = "{"
      // Array.prototype.sort's default order compares UTF-16 code units: RFC 8785 §3.2.3.
      for (const member of Object.keys(object).sort()) {
        name = member
        const written = write((object as Record<string, unknown>)[member], member, ancestors)
        if (written !== undefined) text += (text.length === 1 ? "" : ",") + JSON.stringify(member) + ":" + written
      }
      text += "}"
    }
    ancestors.delete(object)
    return text
  } catch (error) {
    if (error instanceof NoCanonicalForm) error.path.unshift(name)
    throw error
  }
}

/**
 * The RFC 8785 canonical JSON text of `value` (see the module documentation).
 * Equal JSON values give equal text, whatever their members' order.
 */
export const canonicalJson = (value: unknown): string => {
  let text: string | undefined
  try {
    text = write(value, "", new Set())
  } catch (error) {
    if (!(error instanceof NoCanonicalForm)) throw error
    throw new TypeError(`canonical JSON: ${error.path.length === 0 ? "the value" : error.path.join(".")} ${error.message}`)
  }
  if (text === undefined) throw new TypeError(`canonical JSON: ${typeof value} has no JSON form`)
  return text
}

/** Lowercase hex SHA-256 of `value`'s canonical JSON (UTF-8). */
export const canonicalSha256 = (value: unknown): string => sha256Hex(canonicalJson(value))
