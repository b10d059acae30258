/**
 * How `network_egress` rules see a URL (docs/policy-bundle.md "Egress
 * targets"; issue 20 §3). A rule is a glob over `protocol//host[:port]/path`;
 * the same destination can be written many ways, so a URL is matched in every
 * form that reaches the same place, and a rule list matches when any form
 * does:
 *
 * - the host is lower-cased and trailing dots are dropped (`LOCALHOST.` →
 *   `localhost`); IP literals are written canonically, and an IPv4-mapped
 *   IPv6 address is its IPv4 address (`[::ffff:7f00:1]` → `127.0.0.1`);
 * - `localhost` (and `*.localhost`, RFC 6761) is also `127.0.0.1` and `[::1]`;
 *   the unspecified addresses, which connect to this host, are also the
 *   loopback ones (`0.0.0.0` → `127.0.0.1`, `[::]` → `[::1]`);
 * - a URL on its scheme's default port is written without and with it
 *   (`http://h/x` and `http://h:80/x`), so `http://h:*` covers it too;
 * - credentials, query and fragment are dropped (secrets in them never reach
 *   a rule's detail).
 *
 * {@link addressTargets} gives the forms of the URL with its host replaced by
 * an address it resolved to: the executor checks the deny rules on those
 * before connecting (a name that resolves to a denied address is denied).
 *
 * @module
 */
import { Option, Result } from "effect"
import { NetAddress } from "effect/net"
import type { BundleDecision, PolicyDomain } from "./schema.ts"
import { wildcardMatch } from "./wildcard.ts"

const DEFAULT_PORTS: Readonly<Record<string, string>> = { "http:": "80", "https:": "443" }

/** An IP literal (`127.0.0.1`, `::1`, `[::1]`) as an address, IPv4-mapped IPv6 as IPv4; `undefined` for a name. */
const ipOf = (host: string): NetAddress.IpAddress | undefined => {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
  const parsed = NetAddress.ipFromString(bare)
  if (Result.isFailure(parsed)) return undefined
  const ip = parsed.success
  return NetAddress.isIpv6Address(ip) ? Option.getOrElse(NetAddress.fromIpv4Mapped(ip), () => ip) : ip
}

/**
 * A host as rules see it: lower case, no trailing dot, an IP literal in its
 * canonical URL form (IPv6 in brackets, IPv4-mapped IPv6 as IPv4).
 */
export const canonicalHost = (host: string): string => {
  const lower = host.trim().toLowerCase().replace(/\.+$/, "")
  const ip = ipOf(lower)
  return ip === undefined ? lower : NetAddress.formatUrlHost(ip)
}

/** The canonical host and the hosts that reach the same place (loopback names, unspecified addresses). */
export const hostAliases = (host: string): ReadonlyArray<string> => {
  const canonical = canonicalHost(host)
  if (canonical === "localhost" || canonical.endsWith(".localhost")) return [canonical, "127.0.0.1", "[::1]"]
  const ip = ipOf(canonical)
  if (ip !== undefined && NetAddress.isUnspecified(ip)) {
    return [canonical, NetAddress.isIpv4Address(ip) ? "127.0.0.1" : "[::1]"]
  }
  return [canonical]
}

const parseUrl = (raw: string): URL | undefined => {
  try {
    return new URL(raw.trim())
  } catch {
    return undefined
  }
}

/** Text that is not a URL, cut at its first `?` or `#`. */
const notAUrl = (raw: string): string => {
  const trimmed = raw.trim()
  const cut = trimmed.search(/[?#]/)
  return cut === -1 ? trimmed : trimmed.slice(0, cut)
}

/** The forms of `url` with each of `hosts` (see the module documentation); the first is the canonical one. */
const formsOf = (url: URL, hosts: ReadonlyArray<string>): ReadonlyArray<string> => {
  const path = url.pathname || "/"
  const defaultPort = DEFAULT_PORTS[url.protocol]
  const forms: Array<string> = []
  for (const host of hosts) {
    if (url.port !== "") forms.push(`${url.protocol}//${host}:${url.port}${path}`)
    else {
      forms.push(`${url.protocol}//${host}${path}`)
      if (defaultPort !== undefined) forms.push(`${url.protocol}//${host}:${defaultPort}${path}`)
    }
  }
  return forms
}

/**
 * Every form of `raw` that egress rules are matched against, the canonical
 * one (`protocol//host[:port]/path`) first; text that is not a URL is one form
 * (cut at `?`/`#`); blank text has none.
 */
export const egressTargets = (raw: string): ReadonlyArray<string> => {
  if (raw.trim().length === 0) return []
  const url = parseUrl(raw)
  if (url === undefined) return [notAUrl(raw)]
  return formsOf(url, hostAliases(url.hostname))
}

/**
 * The forms of `raw` with its host replaced by `address` (an IP as DNS
 * returns it: `127.0.0.1`, `::ffff:7f00:1`, `::1`), for the check of the
 * address a connection uses; `[]` when `raw` is not a URL or `address` not an IP.
 */
export const addressTargets = (raw: string, address: string): ReadonlyArray<string> => {
  const url = parseUrl(raw)
  if (url === undefined || ipOf(address) === undefined) return []
  return formsOf(url, hostAliases(address))
}

/** The first of `patterns` that matches one of `targets`, if any. */
export const firstMatch = (patterns: ReadonlyArray<string>, targets: ReadonlyArray<string>): string | undefined =>
  patterns.find((pattern) => targets.some((target) => wildcardMatch(pattern, target)))

/**
 * The egress decision for `targets` (the forms of one URL): deny when a deny
 * pattern matches any form, then require_approval, then allow, else the
 * domain's default.
 */
export const evaluateEgressTargets = (domain: PolicyDomain, targets: ReadonlyArray<string>): BundleDecision => {
  if (firstMatch(domain.deny, targets) !== undefined) return "deny"
  if (firstMatch(domain.require_approval, targets) !== undefined) return "require_approval"
  if (firstMatch(domain.allow, targets) !== undefined) return "allow"
  return domain.default
}
