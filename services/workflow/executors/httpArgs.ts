/**
 * The arguments of an `Http` step (docs/workflow-executors.md "Http"):
 * `{method? (GET), url (http/https), headers?: {name: value | {secret_handle}}, body?}`,
 * checked before anything is sent; and the `Idempotency-Key` a keyed step
 * sends.
 *
 * @module
 */
import { HttpMethod } from "effect/http"
import { isSecretReference, REDACTED } from "./httpRedaction.ts"

/** A header value: text, or a secret handle resolved when the attempt runs. */
export type HeaderValue = string | { readonly secret_handle: string }

/** Valid `Http` args. */
export interface HttpArgs {
  readonly method: HttpMethod.HttpMethod
  readonly url: URL
  readonly headers: Readonly<Record<string, HeaderValue>>
  readonly body: unknown
}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** What Node accepts in a header value (no CR, LF, NUL or other controls but tab). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

/** True when `value` may be sent as a header value. */
export const isHeaderValue = (value: string): boolean => HEADER_VALUE.test(value)

/** The value of a record that was redacted (inline credentials are not kept in records). */
const wasRedacted = (url: URL, headers: Readonly<Record<string, HeaderValue>>): string | undefined => {
  const decoded = (text: string) => {
    try {
      return decodeURIComponent(text)
    } catch {
      return text
    }
  }
  if (decoded(url.username) === REDACTED || decoded(url.password) === REDACTED) return "args.url's userinfo"
  for (const [name, value] of url.searchParams) if (value === REDACTED) return `args.url's query parameter ${name}`
  for (const [name, value] of Object.entries(headers)) if (value === REDACTED) return `args.headers.${name}`
  return undefined
}

/** Validates `args`, or says what is wrong (a message naming the field). */
export const parseHttpArgs = (args: Readonly<Record<string, unknown>>): HttpArgs | string => {
  const method = args.method === undefined ? "GET" : typeof args.method === "string" ? args.method.toUpperCase() : undefined
  if (method === undefined || !HttpMethod.isHttpMethod(method)) return "Http args.method must be an HTTP method"
  if (typeof args.url !== "string") return "Http args.url must be a string"
  let url: URL
  try {
    url = new URL(args.url.trim())
  } catch {
    return "Http args.url is not a valid URL"
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Http args.url must be http or https"
  const headers: Record<string, HeaderValue> = {}
  if (args.headers !== undefined) {
    if (typeof args.headers !== "object" || args.headers === null || Array.isArray(args.headers)) {
      return "Http args.headers must be an object of strings or {secret_handle} references"
    }
    for (const [name, value] of Object.entries(args.headers)) {
      if (!HEADER_NAME.test(name)) return `Http args.headers: ${JSON.stringify(name)} is not a header name`
      if (typeof value === "string") {
        if (!isHeaderValue(value)) return `Http args.headers.${name} holds a character a header cannot (CR, LF or another control)`
        headers[name] = value
      } else if (isSecretReference(value) && value.secret_handle.length > 0) {
        headers[name] = { secret_handle: value.secret_handle }
      } else {
        return `Http args.headers.${name} must be a string or {"secret_handle": "<handle id>"}`
      }
    }
  }
  if (args.body !== undefined && (method === "GET" || method === "HEAD")) return `Http args.body is not allowed with ${method}`
  const redacted = wasRedacted(url, headers)
  if (redacted !== undefined) {
    return `Http ${redacted} is the redaction marker ${REDACTED}: inline credentials are not kept in run records (a run restored from a snapshot?); reference a secret with {"secret_handle": "<handle id>"} instead`
  }
  return { method, url, headers, body: args.body }
}

/** The secret handles an `Http` step's headers reference (for the policy gate's `secrets` rule), sorted, once each. */
export const secretHandlesOf = (args: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const headers = args.headers
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) return []
  const handles = Object.values(headers).flatMap((v) => (isSecretReference(v) ? [v.secret_handle] : []))
  return [...new Set(handles)].sort()
}

const utf8 = new TextEncoder()

/**
 * The prefix of the keys the playbook compiler mints per playbook step
 * (`playbook:<id>:<step id>`, services/playbooks/compile.ts
 * `idempotencyKeyOf`): the same in every execution of the playbook.
 */
export const PER_DEFINITION_KEY_PREFIX = "playbook:"

/**
 * The `Idempotency-Key` header value of a keyed step: its `idempotency_key`
 * as given (the key reaches the target, which can then deduplicate a retried
 * POST: every attempt of the step sends the same value). A key minted per
 * playbook step ({@link PER_DEFINITION_KEY_PREFIX}) is the same in every
 * execution, so it is sent as `<key>:<run_id>`: two executions of a playbook
 * (a periodic watcher's, say) are not deduplicated against each other.
 * Characters outside printable ASCII, and `%`, are percent-encoded (UTF-8),
 * since a header value cannot carry them.
 */
export const idempotencyKeyHeader = (run_id: string, idempotency_key: string): string => {
  const text = idempotency_key.startsWith(PER_DEFINITION_KEY_PREFIX) ? `${idempotency_key}:${run_id}` : idempotency_key
  return text.replace(/[^\x20-\x24\x26-\x7e]/gu, (c) =>
    Array.from(utf8.encode(c), (b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""))
}
