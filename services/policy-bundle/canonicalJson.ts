/**
 * Canonical JSON and its SHA-256 (reference §1.3): the bundle's identity.
 * Object keys are sorted recursively (by UTF-16 code units, `Array.sort`'s
 * default), arrays keep their order, `undefined` members are dropped (as
 * `JSON.stringify` does); no whitespace.
 *
 * @module
 */
import { createHash } from "node:crypto"

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortKeys(item)))
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key]
    if (member !== undefined) out[key] = sortKeys(member)
  }
  return out
}

/** `value` as JSON with every object's keys sorted, recursively. */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortKeys(value))

/** Lowercase hex SHA-256 of a UTF-8 string. */
export const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

/** Lowercase hex SHA-256 of `value`'s canonical JSON. */
export const canonicalSha256 = (value: unknown): string => sha256Hex(canonicalJson(value))
