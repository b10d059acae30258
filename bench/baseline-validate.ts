/**
 * Hand-written validation of a parsed `POST /policy/check` body, equivalent to
 * the `PolicyCheckRequest` schema (src/contracts/policy.ts) as decoded by
 * `makeDecoder`: every section optional, unknown keys stripped, amounts
 * non-negative safe integers, currency three ASCII letters, enum values only,
 * absent lists default to `[]`, `connector.scope` trimmed.
 *
 * This is what the plain `node:http` baseline server (and the in-process
 * comparison) uses instead of Effect Schema. It returns the decoded request or
 * `undefined`; the baseline answers 400 without naming the field (the least a
 * plain server needs).
 *
 * @module
 */
import type { LegalFlag, PiiCategory, PolicyCheckRequest } from "../services/policy/schema.ts"

const PII: ReadonlySet<string> = new Set<PiiCategory>(["basic_contact", "location", "financial", "health", "biometric", "government_id", "other"])
const LEGAL: ReadonlySet<string> = new Set<LegalFlag>(["prohibited_content", "requires_review", "terms_unknown", "export_controlled", "other"])
const CURRENCY = /^[A-Za-z]{3}$/

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isMinorUnits = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

const enumList = (value: unknown, allowed: ReadonlySet<string>): Array<string> | undefined => {
  if (value === undefined) return []
  if (!Array.isArray(value)) return undefined
  for (const item of value) if (typeof item !== "string" || !allowed.has(item)) return undefined
  return value as Array<string>
}

/** Decoded request, or `undefined` when `body` does not match the schema. */
export const validatePolicyCheck = (body: unknown): PolicyCheckRequest | undefined => {
  if (!isObject(body)) return undefined
  const out: { -readonly [K in keyof PolicyCheckRequest]: PolicyCheckRequest[K] } = {}

  if (body.request_id !== undefined) {
    if (typeof body.request_id !== "string") return undefined
    out.request_id = body.request_id
  }

  const spend = body.spend
  if (spend !== undefined) {
    if (!isObject(spend)) return undefined
    const amount = spend.amount_minor_units
    const currency = spend.currency
    const limit = spend.user_limit_minor_units
    if (!isMinorUnits(amount) || typeof currency !== "string" || !CURRENCY.test(currency)) return undefined
    if (limit !== undefined && !isMinorUnits(limit)) return undefined
    out.spend = limit === undefined
      ? { amount_minor_units: amount, currency }
      : { amount_minor_units: amount, currency, user_limit_minor_units: limit }
  }

  if (body.pii !== undefined) {
    if (!isObject(body.pii)) return undefined
    const categories = enumList(body.pii.categories, PII)
    if (categories === undefined) return undefined
    out.pii = { categories: categories as Array<PiiCategory> }
  }

  if (body.legal !== undefined) {
    if (!isObject(body.legal)) return undefined
    const flags = enumList(body.legal.flags, LEGAL)
    if (flags === undefined) return undefined
    out.legal = { flags: flags as Array<LegalFlag> }
  }

  const connector = body.connector
  if (connector !== undefined) {
    if (!isObject(connector)) return undefined
    const scope = connector.scope
    if (scope === undefined) out.connector = {}
    else if (typeof scope !== "string") return undefined
    else out.connector = { scope: scope.trim() }
  }

  return out
}
