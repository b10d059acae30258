/**
 * What of an `Http` step and its answer may be stored and served (issue 20
 * §6; docs/workflow-executors.md "What is stored"). Step records, attempt
 * results, events and snapshot exports carry:
 *
 * - the URL with its userinfo replaced by `[redacted]` and the values of
 *   credential-looking query parameters (`token`, `access_token`, `key`,
 *   `api_key`, `secret`, `password`, `signature`, `sig`, …; see
 *   {@link isCredentialName}) replaced by `[redacted]`;
 * - request headers with credential-looking names (`authorization`,
 *   `proxy-authorization`, `cookie`, `x-api-key`, anything naming a token,
 *   secret, password, key, signature, session or auth) replaced by
 *   `[redacted]`; a `{"secret_handle": "sec_…"}` reference is kept (it is not
 *   the secret);
 * - only the response headers of {@link KEPT_RESPONSE_HEADERS}, `location`
 *   itself redacted like a step URL.
 *
 * The marker is the audit log's ({@link REDACTED}, `"[redacted]"`). The
 * request actually sent uses the real values (docs/workflow.md "Where inline
 * credentials live").
 *
 * @module
 */
import { REDACTED } from "../../audit/redact.ts"
import type { WorkflowStep } from "../runs/schema.ts"

export { REDACTED }

/**
 * Names of headers and query parameters that carry a credential,
 * case-insensitive; `-`, `_` and `.` separate words. A word `auth`,
 * `authorization`, `token`, `secret`, `password`, `passwd`, `pwd`,
 * `passphrase`, `apikey`, `signature`, `sig`, `credential(s)`, `cookie`,
 * `session`, `sessionid`, `jwt` or `awsaccesskeyid`; the name `key`; or `key`
 * after `api`, `access`, `secret`, `private`, `subscription`, `functions`,
 * `client`, `master`, `auth` or `signing` (`x-api-key`; `idempotency-key` is
 * not one).
 */
export const CREDENTIAL_NAME =
  /(?:^|[-_.])(?:auth|authorization|token|secret|password|passwd|pwd|passphrase|apikey|signature|sig|credentials?|cookie|session|sessionid|jwt|awsaccesskeyid)(?:[-_.]|$)|^key$|(?:^|[-_.])(?:api|access|secret|private|subscription|functions|client|master|auth|signing)[-_.]+key(?:[-_.]|$)/i

/** True when a header or query parameter named `name` carries a credential ({@link CREDENTIAL_NAME}). */
export const isCredentialName = (name: string): boolean => CREDENTIAL_NAME.test(name.trim())

const decodeName = (raw: string): string => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "))
  } catch {
    return raw
  }
}

/** `query` (without `?`) with the values of credential parameters replaced by the marker. */
const redactQuery = (query: string): string =>
  query.split("&").map((pair) => {
    const eq = pair.indexOf("=")
    const name = eq === -1 ? pair : pair.slice(0, eq)
    return eq !== -1 && isCredentialName(decodeName(name)) ? `${name}=${REDACTED}` : pair
  }).join("&")

/** `url` (not parseable as an absolute URL: relative, or malformed) redacted by its spelling. */
const redactText = (url: string, userinfo: string): string => {
  let out = url
  const authority = /^\s*([A-Za-z][A-Za-z0-9+.-]*:)?[/\\]{2}([^/\\?#]*)/.exec(out)
  if (authority !== null) {
    const at = authority[2]!.lastIndexOf("@")
    if (at !== -1) {
      const start = authority[0].length - authority[2]!.length
      out = `${out.slice(0, start)}${userinfo}${out.slice(start + at + 1)}`
    }
  }
  const q = out.indexOf("?")
  if (q === -1) return out
  const hash = out.indexOf("#", q)
  const end = hash === -1 ? out.length : hash
  return `${out.slice(0, q + 1)}${redactQuery(out.slice(q + 1, end))}${out.slice(end)}`
}

const redactWith = (url: string, userinfo: string): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return redactText(url, userinfo)
  }
  const hasUserinfo = parsed.username !== "" || parsed.password !== ""
  const search = parsed.search === "" ? "" : `?${redactQuery(parsed.search.slice(1))}`
  if (!hasUserinfo && search === parsed.search) return url
  // Rebuilt from the parsed URL, so every spelling the URL parser accepts (`http:u:p@h`, backslashes, tabs) is covered.
  return `${parsed.protocol}//${hasUserinfo ? userinfo : ""}${parsed.host}${parsed.pathname}${search}${parsed.hash}`
}

/**
 * `url` (absolute or relative) with its userinfo replaced by `[redacted]`
 * and the values of its credential query parameters by `[redacted]`; as
 * written when there is nothing to redact. Idempotent.
 */
export const redactUrl = (url: string): string => redactWith(url, `${REDACTED}@`)

/**
 * `url` as the policy gate matches it (`tool_match_target`): userinfo
 * removed, credential query values `[redacted]`. The same for a step and its
 * stored (redacted) record.
 */
export const policyUrl = (url: string): string => redactWith(url, "")

/** True when a value is a `{secret_handle}` reference (kept in records: it is not the secret). */
export const isSecretReference = (value: unknown): value is { readonly secret_handle: string } =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  typeof (value as { secret_handle?: unknown }).secret_handle === "string"

/** `headers` with the string values of credential headers replaced by the marker (other values as given). */
const redactHeaders = (headers: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(headers)) out[name] = typeof value === "string" && isCredentialName(name) ? REDACTED : value
  return out
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * `step` as it may be stored and served: for an `Http` step, `args.url` and
 * `args.headers` redacted (see the module documentation); any other step,
 * or an Http step with nothing to redact, is returned as is (the same object).
 */
export const redactStep = <S extends Pick<WorkflowStep, "type" | "args">>(step: S): S => {
  if (step.type !== "Http") return step
  const { url, headers } = step.args
  const redactedUrl = typeof url === "string" ? redactUrl(url) : url
  const redactedHeaders = isRecord(headers) ? redactHeaders(headers) : headers
  const changed = redactedUrl !== url ||
    (isRecord(headers) && Object.keys(headers).some((name) => headers[name] !== (redactedHeaders as Record<string, unknown>)[name]))
  if (!changed) return step
  return { ...step, args: { ...step.args, url: redactedUrl, ...(isRecord(headers) ? { headers: redactedHeaders } : {}) } }
}

/**
 * Response headers an attempt result keeps (lower case); every other one
 * (`set-cookie`, `www-authenticate`, vendor headers, …) is dropped.
 */
export const KEPT_RESPONSE_HEADERS: ReadonlyArray<string> = [
  "age",
  "cache-control",
  "content-encoding",
  "content-language",
  "content-length",
  "content-type",
  "date",
  "etag",
  "expires",
  "last-modified",
  "location",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "request-id",
  "retry-after",
  "vary",
  "x-correlation-id",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-request-id"
]

const KEPT: ReadonlySet<string> = new Set(KEPT_RESPONSE_HEADERS)

/** The response headers an attempt result keeps: {@link KEPT_RESPONSE_HEADERS}, `location` redacted like a step URL. */
export const keptResponseHeaders = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase()
    if (KEPT.has(lower)) out[lower] = lower === "location" ? redactUrl(value) : value
  }
  return out
}
