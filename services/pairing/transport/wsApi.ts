/**
 * Node pairing over WebSocket (gateway-api.md message table; docs/pairing.md):
 * `pairing.approve`, `pairing.deny`, `pairing.revoke`, operator clients only,
 * device tokens need operator.pairing. Results are the same pairing record as
 * over HTTP.
 */
import {
  WsPairingApproveRequest,
  WsPairingDenyRequest,
  WsPairingResolveResult,
  WsPairingRevokeRequest
} from "../schema.ts"
import { CLIENT, make } from "../../../src/ws/api/message.ts"

/** `pairing.approve` (pending only, else `not_found`): result `{pairing}`; the token goes to the node alone. */
export const PairingApprove = make("pairing.approve", {
  scope: "operator.pairing",
  roles: CLIENT,
  payload: WsPairingApproveRequest,
  result: WsPairingResolveResult,
  description: "Approves a pending pairing, like `POST /pairings/:id/approve`; the scoped token goes to the node alone.",
  example: { payload: { pairing_id: 1, trust_level: "local", capability_allowlist: [{ id: "demo.echo" }] } }
})

/** `pairing.deny` (pending only, else `not_found`): result `{pairing}`; the node's connections close 4001. */
export const PairingDeny = make("pairing.deny", {
  scope: "operator.pairing",
  roles: CLIENT,
  payload: WsPairingDenyRequest,
  result: WsPairingResolveResult,
  description: "Denies a pending pairing, like `POST /pairings/:id/deny`; the node's connections close 4001.",
  example: { payload: { pairing_id: 2, reason: "unknown device" } }
})

/** `pairing.revoke` (any but revoked, else `not_found`): result `{pairing}`; the node's connections close 4001. */
export const PairingRevoke = make("pairing.revoke", {
  scope: "operator.pairing",
  roles: CLIENT,
  payload: WsPairingRevokeRequest,
  result: WsPairingResolveResult,
  description: "Revokes a pairing, like `POST /pairings/:id/revoke`; the node's connections close 4001.",
  example: { payload: { pairing_id: 2, reason: "retired" } }
})
