/**
 * Bounds for free-form JSON received over HTTP and WebSocket (fields typed
 * "any" by the contract: presence `metadata`, peers' `result` and `details`,
 * later approval `context`, …). A value that passes can always be stored,
 * serialised and served back: its nesting is shallow enough for
 * `JSON.stringify`, and its size and key count are bounded.
 * docs/decisions.md "Free-form fields" lists the bounds per field.
 */
import { Schema } from "effect"

// TextEncoder, not Buffer: the contracts (and so this check) also run in browsers (the console, the SDK).
const utf8 = new TextEncoder()

/** Limits of one free-form value. Depth counts nested objects/arrays (a scalar is depth 0, `{}` is 1). */
export interface JsonBounds {
  /** Deepest nesting of objects and arrays. */
  readonly maxDepth: number
  /** Largest UTF-8 size of the value's JSON text, in bytes. */
  readonly maxBytes: number
  /** Most object keys plus array items, over the whole value. */
  readonly maxEntries: number
}

/**
 * Presence `metadata` (and other small descriptive maps): depth ≤ 8, at most
 * 8 KiB of JSON, at most 256 keys and items.
 */
export const SMALL_JSON: JsonBounds = { maxDepth: 8, maxBytes: 8 * 1024, maxEntries: 256 }

/**
 * Results, error details and evidence sent by peers: depth ≤ 32, at most
 * 256 KiB of JSON (reference §5.2's evidence limit), at most 10,000 keys and items.
 */
export const LARGE_JSON: JsonBounds = { maxDepth: 32, maxBytes: 256 * 1024, maxEntries: 10_000 }

/**
 * Why `value` breaks `bounds`, or `undefined` when it fits. Walks the value
 * iteratively (no recursion, so any nesting is safe to inspect) and stops at
 * the first breach; the size is measured only once depth and entries fit.
 */
export const jsonBoundsViolation = (value: unknown, bounds: JsonBounds): string | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const stack: Array<readonly [unknown, number]> = [[value, 1]]
  let entries = 0
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (depth > bounds.maxDepth) return `nests deeper than ${bounds.maxDepth} levels`
    const children: ReadonlyArray<unknown> = Array.isArray(node) ? node : Object.values(node as object)
    entries += children.length
    if (entries > bounds.maxEntries) return `has more than ${bounds.maxEntries} keys and items`
    for (const child of children) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1])
    }
  }
  const bytes = utf8.encode(JSON.stringify(value)).length
  return bytes > bounds.maxBytes ? `is larger than ${bounds.maxBytes} bytes of JSON (${bytes})` : undefined
}

/**
 * `schema` with the bounds checked after decoding; a breach is an
 * `invalid_request` naming the field, e.g. `metadata: nests deeper than 8 levels`.
 */
export const bounded = <S extends Schema.Top>(schema: S, bounds: JsonBounds) =>
  schema.check(Schema.makeFilter((value) => jsonBoundsViolation(value, bounds), {
    expected: `JSON nested at most ${bounds.maxDepth} deep, at most ${bounds.maxBytes} bytes`
  }))
