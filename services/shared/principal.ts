/**
 * Who is calling and who acted, as types every subsystem may name without
 * depending on the auth subsystem (docs/architecture.md "Layout": no folder
 * cycles): the authenticated {@link Principal} (produced by
 * `AuthService.authenticate` and `Pairings.authenticateToken`) and the audit
 * {@link Actor}. Their helpers (`hasScope`, `actorOf`, `CurrentPrincipal`, …)
 * live in `services/auth/principal.ts`, which re-exports these types.
 *
 * @module
 */

/** The peer roles a device token is issued for: `client` (operator programs) or `node` (capability providers). */
export const DEVICE_ROLES = ["client", "node"] as const

/** One of {@link DEVICE_ROLES}. */
export type DeviceRoleName = (typeof DEVICE_ROLES)[number]

/** The admin token's principal: every scope, every route. */
export interface AdminPrincipal {
  readonly kind: "admin"
}

/** A device token's principal; `scopes` is the de-duplicated set it was issued with (spec scopes only). */
export interface DevicePrincipal {
  readonly kind: "device"
  readonly tokenId: string
  readonly deviceId: string
  readonly role: DeviceRoleName
  readonly scopes: ReadonlySet<string>
  /** When the token expires (ISO-8601 UTC), `null` when persistent; absent when not known (a principal built by hand). */
  readonly expiresAt?: string | null | undefined
}

/**
 * A scoped node token's principal (docs/pairing.md): the node whose pairing
 * `pairingId` was approved. It authenticates only a WebSocket peer of role
 * `node` whose proven device id is `nodeId`, holds no operator scope, and may
 * send only the requests a node needs (declarations with `nodeToken: true`).
 */
export interface NodePrincipal {
  readonly kind: "node"
  readonly nodeId: string
  readonly pairingId: number
}

/** An authenticated caller. */
export type Principal = AdminPrincipal | DevicePrincipal | NodePrincipal

/**
 * Who asked for an audited operation, as the audit event records it (never a
 * token): `admin` (the admin token), `device` (a device token: its
 * `device_id` and `token_id`), `node` (a scoped node token: its `node_id`),
 * or `unauthenticated` (gateway auth is off, `SVC_AUTH=off`).
 */
export type Actor =
  | { readonly kind: "admin" }
  | { readonly kind: "device"; readonly device_id: string; readonly token_id: string }
  | { readonly kind: "node"; readonly node_id: string }
  | { readonly kind: "unauthenticated" }
