/**
 * The audit actions of refused requests (docs/audit.md "Chains":
 * `gateway.auth`), shared by the HTTP middleware, the WS dispatch and the MCP tools. They
 * name the caller by its token id and device (or node), never by a
 * credential.
 *
 * @module
 */
import type { Principal } from "../shared/principal.ts"
import type { AuditAction } from "./schema.ts"

/** Who was refused, without any credential. */
const callerOf = (principal: Principal) => {
  switch (principal.kind) {
    case "device":
      return { principal: "device", token_id: principal.tokenId, device_id: principal.deviceId, role: principal.role }
    case "node":
      return { principal: "node", node_id: principal.nodeId, pairing_id: principal.pairingId }
    default:
      return { principal: principal.kind }
  }
}

/** What a refused authorization records. */
export interface AuthzDenial {
  readonly transport: "http" | "ws" | "mcp"
  /**
   * The declared route template (HTTP, e.g. `/audit/export/:planId`; `/*` when undeclared), the WS request type, or
   * the MCP tool's name (`/mcp`, services/mcp).
   */
  readonly route: string
  /** HTTP only. */
  readonly method?: string | undefined
  /** The scope the route needs, or null when the refusal is not about a scope (admin token only, node token). */
  readonly required_scope: string | null
  /** Why (the error's message). */
  readonly reason: string
}

/** `authz.denied`: an authenticated caller lacked what the route needs. */
export const authzDenied = (principal: Principal, denial: AuthzDenial): AuditAction => ({
  type: "authz.denied",
  ...denial,
  ...callerOf(principal)
})
