/**
 * Postconditions of a step (issue 12 "Postconditions"; docs/workflow-executors.md):
 * `{status?, json_path_equals?: {path, equals} | Array<{path, equals}>, contains?}`
 * checked on an attempt's result. Unknown keys are ignored (the planner adds
 * descriptive ones, e.g. `amount_minor_units`). An unmet check fails the
 * attempt with `postcondition_failed` naming the check; a malformed
 * postcondition fails it with `invalid_action`.
 *
 * @module
 */
import { Effect } from "effect"
import { AttemptFailed } from "../StepExecutor.ts"

/** One `json_path_equals` check. */
export interface JsonPathEquals {
  readonly path: string
  readonly equals: unknown
}

/** A parsed postcondition (only the keys the executors check). */
export interface Postcondition {
  readonly status?: unknown
  readonly json_path_equals?: ReadonlyArray<JsonPathEquals>
  readonly contains?: string
}

/** One segment of a parsed JSON path: an object key or an array index. */
export type PathSegment = string | number

/** Longest path accepted, in characters. */
const MAX_PATH_LENGTH = 1024

/**
 * Parses a small JSON path: `$` then any of `.key`, `[0]`, `['key']`,
 * `["key"]`. Returns the segments, or an error message.
 */
export const parseJsonPath = (path: string): ReadonlyArray<PathSegment> | string => {
  if (path.length > MAX_PATH_LENGTH) return `path longer than ${MAX_PATH_LENGTH} characters`
  if (!path.startsWith("$")) return `path must start with "$"`
  const segments: Array<PathSegment> = []
  let i = 1
  while (i < path.length) {
    const c = path[i]
    if (c === ".") {
      const match = /^[A-Za-z0-9_$-]+/.exec(path.slice(i + 1))
      if (match === null) return `expected a key after "." at offset ${i}`
      segments.push(match[0])
      i += 1 + match[0].length
    } else if (c === "[") {
      const rest = path.slice(i)
      const index = /^\[(\d+)\]/.exec(rest)
      if (index !== null) {
        segments.push(Number(index[1]))
        i += index[0].length
        continue
      }
      const quoted = /^\[(?:'([^']*)'|"([^"]*)")\]/.exec(rest)
      if (quoted === null) return `expected [<index>] or ['<key>'] at offset ${i}`
      segments.push(quoted[1] ?? quoted[2] ?? "")
      i += quoted[0].length
    } else {
      return `unexpected "${c}" at offset ${i}`
    }
  }
  return segments
}

/** The value at `segments` in `value`, or `undefined` when there is none. */
export const valueAt = (value: unknown, segments: ReadonlyArray<PathSegment>): unknown => {
  let current = value
  for (const segment of segments) {
    if (typeof segment === "number") {
      if (!Array.isArray(current)) return undefined
      current = current[segment]
    } else {
      if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined
      if (!Object.hasOwn(current, segment)) return undefined
      current = (current as Record<string, unknown>)[segment]
    }
  }
  return current
}

/** Structural equality of JSON values (object key order does not matter). */
export const jsonEquals = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const other = b as ReadonlyArray<unknown>
    return a.length === other.length && a.every((item, i) => jsonEquals(item, other[i]))
  }
  const ao = a as Record<string, unknown>
  const bo = b as Record<string, unknown>
  const keys = Object.keys(ao).filter((k) => ao[k] !== undefined)
  const otherKeys = Object.keys(bo).filter((k) => bo[k] !== undefined)
  return keys.length === otherKeys.length && keys.every((k) => Object.hasOwn(bo, k) && jsonEquals(ao[k], bo[k]))
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Reads a step's postcondition: `undefined` when absent (or `null`), the
 * checks otherwise, or an error message when malformed.
 */
export const parsePostcondition = (raw: unknown): Postcondition | undefined | string => {
  if (raw === undefined || raw === null) return undefined
  if (!isRecord(raw)) return "postcondition must be an object"
  const out: { status?: unknown; json_path_equals?: ReadonlyArray<JsonPathEquals>; contains?: string } = {}
  if (raw.status !== undefined) {
    if (typeof raw.status !== "number" && typeof raw.status !== "string") return "postcondition.status must be a number or a string"
    out.status = raw.status
  }
  if (raw.json_path_equals !== undefined) {
    const list = Array.isArray(raw.json_path_equals) ? raw.json_path_equals : [raw.json_path_equals]
    const checks: Array<JsonPathEquals> = []
    for (const item of list) {
      if (!isRecord(item) || typeof item.path !== "string" || !Object.hasOwn(item, "equals")) {
        return "postcondition.json_path_equals must be {path, equals} or an array of them"
      }
      const parsed = parseJsonPath(item.path)
      if (typeof parsed === "string") return `postcondition.json_path_equals path ${JSON.stringify(item.path)}: ${parsed}`
      checks.push({ path: item.path, equals: item.equals })
    }
    out.json_path_equals = checks
  }
  if (raw.contains !== undefined) {
    if (typeof raw.contains !== "string") return "postcondition.contains must be a string"
    out.contains = raw.contains
  }
  return out
}

/**
 * The value `status` is compared with: the result's `status` (Http; node
 * results may carry one), else its `exit_code` (CLI).
 */
export const statusOf = (result: unknown): unknown => {
  if (!isRecord(result)) return undefined
  if (result.status !== undefined) return result.status
  return result.exit_code
}

/**
 * The text `contains` searches: the result's `body` (a string, or its JSON),
 * else its `stdout`, else the whole result as JSON.
 */
export const textOf = (result: unknown): string => {
  if (isRecord(result)) {
    if (result.body !== undefined) return typeof result.body === "string" ? result.body : JSON.stringify(result.body)
    if (typeof result.stdout === "string") return result.stdout
  }
  if (typeof result === "string") return result
  return JSON.stringify(result) ?? ""
}

/** Loose status equality: `200` and `"200"` are the same status. */
export const sameStatus = (a: unknown, b: unknown): boolean => a !== undefined && b !== undefined && String(a) === String(b)

const show = (u: unknown): string => {
  const json = JSON.stringify(u) ?? "undefined"
  return json.length > 200 ? `${json.slice(0, 200)}…` : json
}

/**
 * The first unmet check of `postcondition` on `result`, as a message, or
 * `undefined` when every check holds.
 */
export const unmetCheck = (postcondition: Postcondition, result: unknown): string | undefined => {
  if (postcondition.status !== undefined) {
    const actual = statusOf(result)
    if (!sameStatus(actual, postcondition.status)) {
      return `status: expected ${show(postcondition.status)}, got ${actual === undefined ? "no status" : show(actual)}`
    }
  }
  for (const check of postcondition.json_path_equals ?? []) {
    const segments = parseJsonPath(check.path)
    const actual = typeof segments === "string" ? undefined : valueAt(result, segments)
    if (!jsonEquals(actual, check.equals)) {
      return `json_path_equals ${check.path}: expected ${show(check.equals)}, got ${actual === undefined ? "nothing" : show(actual)}`
    }
  }
  if (postcondition.contains !== undefined && !textOf(result).includes(postcondition.contains)) {
    return `contains: the result does not contain ${show(postcondition.contains)}`
  }
  return undefined
}

/**
 * Checks the step's raw `postcondition` on `result`: fails with
 * `postcondition_failed` (carrying the result) when a check is unmet, or
 * `invalid_action` when the postcondition is malformed.
 */
export const checkPostcondition = (raw: unknown, result: unknown): Effect.Effect<void, AttemptFailed> => {
  const parsed = parsePostcondition(raw)
  if (parsed === undefined) return Effect.void
  if (typeof parsed === "string") return Effect.fail(new AttemptFailed({ code: "invalid_action", message: parsed }))
  const unmet = unmetCheck(parsed, result)
  return unmet === undefined
    ? Effect.void
    : Effect.fail(new AttemptFailed({ code: "postcondition_failed", message: `postcondition failed: ${unmet}`, result }))
}
