/**
 * Events of the nodes subsystem (reference §5.3): `capability.ready` when a
 * node declares its ready set, `attempt.evidence` when the node executing an
 * attempt reports evidence. Both go to operator clients holding
 * `operator.read` (the admin token always).
 */
import { Schema } from "effect"
import { make, OPERATORS_READ } from "../ws-sessions/GatewayEvent.ts"
import { CapabilityDescriptor } from "../ws-sessions/schema.ts"
import { AttemptEvidence } from "./schema.ts"

/** A node declared capabilities ready: `{node_id, connection_id, capabilities}` (scope `{kind:"node", node_id}`). */
export const CapabilityReadyEvent = make("capability.ready", {
  payload: Schema.Struct({
    node_id: Schema.String,
    connection_id: Schema.String,
    capabilities: Schema.Array(CapabilityDescriptor)
  }),
  audience: OPERATORS_READ
})

/** Evidence of a running attempt: `{node_id, run_id, step_id, attempt_id, evidence}` (scope `{kind:"run", run_id}`). */
export const AttemptEvidenceEvent = make("attempt.evidence", {
  payload: AttemptEvidence,
  audience: OPERATORS_READ
})

/** Every event type of this subsystem. */
export const NodeEvents = [CapabilityReadyEvent, AttemptEvidenceEvent] as const
