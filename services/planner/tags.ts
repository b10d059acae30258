/**
 * The tags of a plan request, turned into the sections of a policy check
 * (docs/planner.md "Tags"). A section with no tag is left absent, so its
 * policy rule requires approval exactly as policy-check.md rule 5 says (a
 * plan without a spend tag escalates); `pii:none` / `legal:none` declare an
 * empty list. Tags with another prefix are free-form and ignored here.
 *
 * Pure and synchronous: a malformed tag is a message naming it (the planner
 * answers it as 400 `invalid_request`).
 *
 * @module
 */
import { Result } from "effect"
import { describeInput } from "../shared/decode.ts"
import {
  LEGAL_FLAGS,
  type LegalFlag,
  PII_CATEGORIES,
  type PiiCategory,
  type PolicyCheckRequest,
  type SpendContext
} from "../policy/schema.ts"

/** The spend a `spend:` tag asks for (currency uppercased; merchant with `_` shown as spaces). */
export interface SpendTag {
  readonly amount_minor_units: number
  readonly currency: string
  readonly merchant?: string
}

/** What the tags of a request mean. */
export interface ParsedTags {
  /** The policy check for the request (sections only for the tags present). */
  readonly policy: PolicyCheckRequest
  /** The spend tag, when there is one. */
  readonly spend?: SpendTag
}

/** The word that declares an empty category / flag list. */
export const NONE = "none"

const AMOUNT = /^\d{1,16}$/
const CURRENCY = /^[A-Za-z]{3}$/
const CONNECTOR_SCOPE = /^mcp:\/\/[A-Za-z0-9][A-Za-z0-9._-]*$/

const SPEND_FORM = "spend:<amount_minor_units>:<CUR>[:<merchant>]"
const PII_FORM = `pii:<category> with category one of ${NONE}, ${PII_CATEGORIES.join(", ")}`
const LEGAL_FORM = `legal:<flag> with flag one of ${NONE}, ${LEGAL_FLAGS.join(", ")}`
const CONNECTOR_FORM = "connector:mcp://<name> (name: letters, digits, . _ -)"

const expected = (index: number, form: string, tag: string): string =>
  `tags[${index}]: expected ${form}, got ${describeInput(tag)}`

const parseSpend = (tag: string): SpendTag | undefined => {
  const [amount, currency, ...rest] = tag.slice("spend:".length).split(":")
  // The merchant is the rest of the tag (it may hold ":"); underscores stand for spaces.
  const merchant = rest.length === 0 ? undefined : rest.join(":").replaceAll("_", " ").trim()
  if (!AMOUNT.test(amount) || currency === undefined || !CURRENCY.test(currency) || merchant === "") return undefined
  const parsed = { amount_minor_units: Number(amount), currency: currency.toUpperCase() }
  if (!Number.isSafeInteger(parsed.amount_minor_units)) return undefined
  return merchant === undefined ? parsed : { ...parsed, merchant }
}

/** A `pii:` or `legal:` list being collected: absent until a tag names it; `none` declares it empty. */
interface ListTags<A extends string> {
  list: Array<A> | undefined
  none: boolean
}

/** Adds the value of a `pii:`/`legal:` tag to `state`; returns a message when the tag is invalid. */
const addListTag = <A extends string>(
  state: ListTags<A>,
  allowed: ReadonlyArray<A>,
  prefix: "pii" | "legal",
  form: string,
  index: number,
  tag: string
): string | undefined => {
  const value = tag.slice(prefix.length + 1)
  if (value !== NONE && !(allowed as ReadonlyArray<string>).includes(value)) return expected(index, form, tag)
  if (value === NONE ? (state.list?.length ?? 0) > 0 : state.none) {
    return `tags[${index}]: ${prefix}:${NONE} cannot be combined with other ${prefix} tags`
  }
  state.list ??= []
  if (value === NONE) state.none = true
  else if (!state.list.includes(value as A)) state.list.push(value as A)
  return undefined
}

/**
 * Parses the tags of a request into its policy check. Fails with one message
 * naming the first bad tag, e.g. `tags[1]: expected pii:<category> …, got "pii:dna"`.
 */
export const parseTags = (tags: ReadonlyArray<string>, requestId?: string): Result.Result<ParsedTags, string> => {
  let spend: { index: number; value: SpendTag } | undefined
  let connector: { index: number; scope: string } | undefined
  const pii: ListTags<PiiCategory> = { list: undefined, none: false }
  const legal: ListTags<LegalFlag> = { list: undefined, none: false }
  for (let index = 0; index < tags.length; index++) {
    const tag = tags[index]
    let problem: string | undefined
    if (tag.startsWith("spend:")) {
      const value = parseSpend(tag)
      if (spend !== undefined) problem = `tags[${index}]: only one spend tag is allowed (tags[${spend.index}] is one)`
      else if (value === undefined) problem = expected(index, SPEND_FORM, tag)
      else spend = { index, value }
    } else if (tag.startsWith("pii:")) {
      problem = addListTag(pii, PII_CATEGORIES, "pii", PII_FORM, index, tag)
    } else if (tag.startsWith("legal:")) {
      problem = addListTag(legal, LEGAL_FLAGS, "legal", LEGAL_FORM, index, tag)
    } else if (tag.startsWith("connector:")) {
      const scope = tag.slice("connector:".length)
      if (connector !== undefined) problem = `tags[${index}]: only one connector tag is allowed (tags[${connector.index}] is one)`
      else if (!CONNECTOR_SCOPE.test(scope)) problem = expected(index, CONNECTOR_FORM, tag)
      else connector = { index, scope }
    }
    if (problem !== undefined) return Result.fail(problem)
  }
  const spendContext: SpendContext | undefined = spend === undefined
    ? undefined
    : { amount_minor_units: spend.value.amount_minor_units, currency: spend.value.currency }
  const policy: PolicyCheckRequest = {
    ...(requestId === undefined ? {} : { request_id: requestId }),
    ...(spendContext === undefined ? {} : { spend: spendContext }),
    ...(pii.list === undefined ? {} : { pii: { categories: pii.list } }),
    ...(legal.list === undefined ? {} : { legal: { flags: legal.list } }),
    ...(connector === undefined ? {} : { connector: { scope: connector.scope } })
  }
  return Result.succeed(spend === undefined ? { policy } : { policy, spend: spend.value })
}
