/**
 * Capability descriptors as text: `demo.echo 1.0.0` (the version only when
 * the descriptor has one; a descriptor without one admits any version in an
 * allowlist). Used by the nodes and pairings pages.
 */
import type { CapabilityDescriptor } from "../../../services/ws-sessions/schema.ts"

/** `id` or `id version`. */
export const capabilityLabel = (capability: CapabilityDescriptor): string =>
  capability.version === undefined ? capability.id : `${capability.id} ${capability.version}`

/** A list of capabilities as inline code, or `empty` (default "none") when there are none. */
export const Capabilities = ({ list, empty = "none" }: { list: ReadonlyArray<CapabilityDescriptor>; empty?: string }) =>
  list.length === 0
    ? <span class="hint">{empty}</span>
    : <ul class="caps">{list.map((c) => <li key={capabilityLabel(c)}><code>{capabilityLabel(c)}</code></li>)}</ul>
