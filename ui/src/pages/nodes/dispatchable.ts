/**
 * Which ready capabilities of a node a dispatch would accept: the server's
 * own rule (services/nodes/eligibility.ts: pairing approved, allowlisted,
 * ready, version) applied to `GET /nodes`'s summary. A node's ready set is
 * what it declared among what it advertised, allowlisted or not (docs/nodes.md
 * "capability.ready"), so the page tells the two apart. The gateway checks
 * again at dispatch (409 `no_eligible_node` says why).
 */
import type { ConnectionEntry } from "../../../../services/backplane/schema.ts"
import { eligibility } from "../../../../services/nodes/eligibility.ts"
import type { Pairing } from "../../../../services/pairing/schema.ts"
import type { CapabilityDescriptor, NodeSummary } from "./types.ts"

/** The ready capabilities of `node`, split into those a dispatch accepts and those it refuses (with the reason). */
export const splitReady = (node: NodeSummary): {
  readonly dispatchable: ReadonlyArray<CapabilityDescriptor>
  readonly refused: ReadonlyArray<{ readonly capability: CapabilityDescriptor; readonly reason: string }>
} => {
  // The fields eligibility reads, from the summary (its ready descriptors carry the advertised versions).
  const connection: Pick<ConnectionEntry, "role" | "capabilities" | "readyCapabilities"> = {
    role: "node",
    capabilities: node.ready_capabilities,
    readyCapabilities: new Set(node.ready_capabilities.map((c) => c.id))
  }
  const pairing: Pick<Pairing, "status" | "capability_allowlist"> = {
    status: node.pairing_status,
    capability_allowlist: node.capability_allowlist
  }
  const dispatchable: Array<CapabilityDescriptor> = []
  const refused: Array<{ capability: CapabilityDescriptor; reason: string }> = []
  for (const capability of node.ready_capabilities) {
    const verdict = eligibility(connection as ConnectionEntry, pairing as Pairing, capability.id)
    if (verdict.eligible) dispatchable.push(capability)
    else refused.push({ capability, reason: verdict.reason })
  }
  return { dispatchable, refused }
}
