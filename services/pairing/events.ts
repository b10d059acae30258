/**
 * Events of the pairing subsystem (reference §4; docs/pairing.md):
 * `pairing.requested` when a pairing becomes pending (a new node, or a denied
 * or revoked node that connected again), `pairing.resolved` on every
 * transition out of it (approved, denied, revoked), both to operator clients
 * holding `operator.pairing` (the admin token always), with the envelope scope
 * `{kind: "node", node_id}`. And `pairing.approved {pairing, scoped_token}`,
 * which is NEVER published: the service writes it straight to the approved
 * node's own live connections.
 */
import { Schema } from "effect"
import { type Audience, make } from "../ws-sessions/GatewayEvent.ts"
import { Pairing, PairingApprovedPayload } from "./schema.ts"

/** Operator clients holding `operator.pairing` (the admin token always): who may resolve pairings. */
export const PAIRING_OPERATORS: Audience = { roles: ["client"], requiredScopes: ["operator.pairing"] }

/** A pairing became pending: `{pairing}`. */
export const PairingRequested = make("pairing.requested", {
  payload: Schema.Struct({ pairing: Pairing }),
  audience: PAIRING_OPERATORS
})

/** A pairing was approved, denied or revoked: `{pairing}` with its resolution. Sent once per transition. */
export const PairingResolved = make("pairing.resolved", {
  payload: Schema.Struct({ pairing: Pairing }),
  audience: PAIRING_OPERATORS
})

/**
 * The node's pairing was approved: `{pairing, scoped_token}`. Delivered by
 * `Pairings.approve` directly to the live connections of that node (role
 * `node`, device id = node id), never through `EventBus.publish`: its
 * audience is empty, so an accidental publish reaches nobody.
 */
export const PairingApproved = make("pairing.approved", {
  payload: PairingApprovedPayload,
  audience: { roles: [] }
})

/** Every event type of this subsystem. */
export const PairingEvents = [PairingRequested, PairingResolved, PairingApproved] as const
