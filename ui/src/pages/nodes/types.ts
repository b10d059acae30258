/**
 * The node shapes, from the declarations the server uses: `GET /nodes` and
 * dispatch (services/nodes/schema.ts), `GET /connections`
 * (services/ws-sessions/transport/httpApi.ts).
 */
export type { AttemptEvidence, NodeDispatchResponse, NodeSummary } from "../../../../services/nodes/schema.ts"
export type { ConnectionSummary } from "../../../../services/ws-sessions/transport/httpApi.ts"
export type { CapabilityDescriptor } from "../../../../services/ws-sessions/schema.ts"
