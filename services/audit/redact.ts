/**
 * What an audit action may hold (docs/audit.md "Redaction"): plain JSON,
 * never a credential. An action is normalised to JSON (as `JSON.stringify`
 * would write it: `toJSON`, dates as strings, `undefined` dropped) and every
 * member named like a credential (`token`, `secret`, `password`,
 * `authorization`, `cookie`, …) or any string shaped like one of the
 * gateway's tokens (`svc-device.v1.…`, `svc-node.v1.…`, `Bearer …`) is
 * replaced by `"[redacted]"`, before it is hashed or stored.
 *
 * @module
 */

/** What replaces a redacted value. */
export const REDACTED = "[redacted]"

/** Member names (lowercase, `-` read as `_`) whose values are never recorded. */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  "scoped_token",
  "resume_token",
  "device_token",
  "admin_token",
  "secret",
  "secret_value",
  "client_secret",
  "password",
  "passphrase",
  "authorization",
  "proxy_authorization",
  "cookie",
  "set_cookie",
  "api_key",
  "apikey",
  "private_key",
  "sec_websocket_protocol"
])

/** Strings that are credentials whatever their member is called. */
const SECRET_VALUE = /^(svc-device\.v1\.|svc-node\.v1\.|svc-auth\.|bearer\s)/i

const isSecretKey = (key: string): boolean => SECRET_KEYS.has(key.toLowerCase().replace(/-/g, "_"))

const redactValue = (value: unknown): unknown => {
  if (typeof value === "string") return SECRET_VALUE.test(value) ? REDACTED : value
  if (Array.isArray(value)) return value.map(redactValue)
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, member] of Object.entries(value)) out[key] = isSecretKey(key) ? REDACTED : redactValue(member)
  return out
}

/**
 * `action` as plain JSON with every credential replaced by
 * {@link REDACTED}. A value JSON cannot represent (a function, a bare
 * `undefined`) becomes `null`.
 */
export const redactAction = (action: unknown): unknown => {
  const text = JSON.stringify(action)
  return text === undefined ? null : redactValue(JSON.parse(text))
}
