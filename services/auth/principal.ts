/**
 * Who is calling. Produced by {@link AuthService.authenticate}, consumed by
 * authorization (HTTP route table, WS message table).
 *
 * gateway-api.md "Authentication": the admin token is break-glass and bypasses
 * scope enforcement; device tokens are scoped. The types ({@link Principal},
 * {@link Actor}) live in services/shared/principal.ts so that subsystems below
 * auth (audit) can name them; they are re-exported here.
 */
import { Context } from "effect"
import type { Actor, AdminPrincipal, Principal } from "../shared/principal.ts"

export { KNOWN_SCOPES, type Scope } from "./schema.ts"
export type { Actor, AdminPrincipal, DevicePrincipal, NodePrincipal, Principal } from "../shared/principal.ts"

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
 * (gateway-api.md "Authentication": the admin token bypasses scopes; a device
 * token needs that exact scope, there is no wildcard; a scoped node token
 * holds none).
 */
export const hasScope = (principal: Principal, scope: string): boolean => {
  switch (principal.kind) {
    case "admin":
      return true
    case "device":
      return principal.scopes.has(scope)
    case "node":
      return false
  }
}

/** How `resolved_by` names a principal: `admin`, a device token's device id, a node token's node id. Never a token. */
export const principalName = (principal: Principal | undefined): string | undefined => {
  if (principal === undefined) return undefined
  switch (principal.kind) {
    case "admin":
      return "admin"
    case "device":
      return principal.deviceId
    case "node":
      return principal.nodeId
  }
}

/** Who acted, as a record's `resolved_by` shows it: the transport and the principal's name (absent when auth is off). */
export interface ResolvedBy {
  readonly kind: "http" | "ws"
  readonly principal?: string
}

/** `resolved_by` of a decision made over `kind` by `principal` (never a token). */
export const resolvedBy = (kind: "http" | "ws", principal: Principal | undefined): ResolvedBy => {
  const name = principalName(principal)
  return name === undefined ? { kind } : { kind, principal: name }
}

/** The {@link Actor} of `principal` (`undefined`: auth is off). */
export const actorOf = (principal: Principal | undefined): Actor => {
  if (principal === undefined) return { kind: "unauthenticated" }
  switch (principal.kind) {
    case "admin":
      return { kind: "admin" }
    case "device":
      return { kind: "device", device_id: principal.deviceId, token_id: principal.tokenId }
    case "node":
      return { kind: "node", node_id: principal.nodeId }
  }
}
