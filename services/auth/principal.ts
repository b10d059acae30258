/**
 * Who is calling. Produced by {@link AuthService.authenticate}, consumed by
 * authorization (HTTP route table, WS message table).
 *
 * gateway-api.md "Authentication": the admin token is break-glass and bypasses
 * scope enforcement; device tokens are scoped.
 */
import { Context } from "effect"
import type { DeviceRole } from "./schema.ts"

/** Device-token scopes named by the spec (gateway-api.md "Authentication"). */
export const KNOWN_SCOPES = [
  "operator.read",
  "operator.write",
  "operator.admin",
  "operator.approvals",
  "operator.pairing"
] as const

/** One of {@link KNOWN_SCOPES}. Issued tokens may carry other strings; they simply never match a route. */
export type Scope = (typeof KNOWN_SCOPES)[number]


/** The admin token's principal: every scope, every route. */
export interface AdminPrincipal {
  readonly kind: "admin"
}

/** A device token's principal; `scopes` is the de-duplicated, trimmed set it was issued with. */
export interface DevicePrincipal {
  readonly kind: "device"
  readonly tokenId: string
  readonly deviceId: string
  readonly role: DeviceRole
  readonly scopes: ReadonlySet<string>
}

/** An authenticated caller. */
export type Principal = AdminPrincipal | DevicePrincipal

/** The shared admin principal value (no per-request allocation). */
export const adminPrincipal: AdminPrincipal = { kind: "admin" }

/**
 * The principal of the request being served; `undefined` on public routes or
 * when gateway auth is off. Set by the HTTP auth middleware.
 */
export const CurrentPrincipal = Context.Reference<Principal | undefined>(
  "svc-gateway/auth/CurrentPrincipal",
  { defaultValue: () => undefined }
)

/**
 * True when `principal` may use an operation that needs `scope`
 * (reference §2.3: admin bypasses; `*` grants all).
 */
export const hasScope = (principal: Principal, scope: string): boolean =>
  principal.kind === "admin" || principal.scopes.has(scope) || principal.scopes.has("*")
