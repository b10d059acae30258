/**
 * A zod 4 schema equivalent to the `PolicyCheckRequest` schema
 * (src/contracts/policy.ts), written as a zod user would: every section
 * optional, unknown keys stripped (zod's default for `z.object`), amounts
 * non-negative safe integers (`z.int()` only accepts the safe range), currency
 * three ASCII letters, enum lists defaulting to `[]`, `connector.scope`
 * trimmed.
 *
 * Used by the Hono peer of the HTTP benchmark (`bench/hono-server.ts`) and by
 * the in-process comparison. Like the baseline's hand-written validation it
 * imports no runtime code from the contract (that would load Effect into the
 * Hono server); the literal lists are checked against the contract's types
 * below, so they cannot drift.
 *
 * @module
 */
import { z } from "zod"
import type { LegalFlag, PiiCategory, PolicyCheckRequest } from "../services/policy/schema.ts"

const PII_CATEGORIES = [
  "basic_contact",
  "location",
  "financial",
  "health",
  "biometric",
  "government_id",
  "other"
] as const
const LEGAL_FLAGS = ["prohibited_content", "requires_review", "terms_unknown", "export_controlled", "other"] as const

const MinorUnits = z.int().nonnegative()

export const PolicyCheckRequestZod = z.object({
  request_id: z.string().optional(),
  spend: z.object({
    amount_minor_units: MinorUnits,
    currency: z.string().regex(/^[A-Za-z]{3}$/, "expected a three-letter currency code"),
    user_limit_minor_units: MinorUnits.optional()
  }).optional(),
  pii: z.object({ categories: z.array(z.enum(PII_CATEGORIES)).default(() => []) }).optional(),
  legal: z.object({ flags: z.array(z.enum(LEGAL_FLAGS)).default(() => []) }).optional(),
  connector: z.object({ scope: z.string().trim().optional() }).optional()
})

// Compile-time guards: the zod lists are exactly the contract's enums, and
// what the schema outputs is the engine's input type.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type Assert<T extends true> = T
export type MatchesContract = [
  Assert<Same<(typeof PII_CATEGORIES)[number], PiiCategory>>,
  Assert<Same<(typeof LEGAL_FLAGS)[number], LegalFlag>>,
  Assert<z.output<typeof PolicyCheckRequestZod> extends PolicyCheckRequest ? true : false>
]

/** One-line 400 message for a failed parse: the first issue and where it is. */
export const describeZodError = (error: z.ZodError): string => {
  const issue = error.issues[0]
  if (issue === undefined) return "invalid request"
  return issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`
}
