/**
 * Same-origin checks for cookie credentials (gateway-api.md "Authentication":
 * the `svc_admin_token` cookie is for same-origin browser use). Used by the
 * HTTP middleware (unsafe methods) and the `/ws` upgrade.
 */

const defaultPort = (protocol: string): string => (protocol === "https:" ? "443" : "80")

/** The scheme a request arrived over: `https` on a TLS socket or behind a proxy saying so (`x-forwarded-proto`). */
export const requestScheme = (encrypted: boolean | undefined, forwardedProto: string | undefined): "http" | "https" =>
  encrypted === true || forwardedProto?.trim().toLowerCase() === "https" ? "https" : "http"

/**
 * True when `origin` (the `Origin` header) names the same origin as the
 * request: scheme equal to `scheme`, host name equal to `host`'s (the `Host`
 * header, case-insensitive) and the same port (80/443 when omitted).
 * A missing `Origin` or `Host`, `Origin: null` and anything unparsable are not
 * same-origin.
 */
export const isSameOrigin = (origin: string | undefined, host: string | undefined, scheme: "http" | "https"): boolean => {
  if (origin === undefined || host === undefined) return false
  try {
    const o = new URL(origin)
    if (o.protocol !== `${scheme}:`) return false
    const h = new URL(`${o.protocol}//${host}`)
    return o.hostname.toLowerCase() === h.hostname.toLowerCase() &&
      (o.port || defaultPort(o.protocol)) === (h.port || defaultPort(o.protocol))
  } catch {
    return false
  }
}
