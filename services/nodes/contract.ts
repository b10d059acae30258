/**
 * The nodes subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { NodesApi } from "./transport/httpApi.ts"
import { CapabilityReady, AttemptEvidence } from "./transport/wsApi.ts"
import { NodeEvents } from "./events.ts"

/** The nodes subsystem's contract. */
export const NodesContract: Contract<"nodes", typeof NodesApi, typeof CapabilityReady | typeof AttemptEvidence, (typeof NodeEvents)[number]> = contract({ name: "nodes", http: [NodesApi], ws: [CapabilityReady, AttemptEvidence], events: NodeEvents })
