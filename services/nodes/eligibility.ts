/**
 * Dispatch eligibility (reference §4 "Dispatch eligibility"; docs/nodes.md):
 * a connection may run `capability` when it is a node, its node's pairing is
 * approved, the pairing's allowlist contains the capability (at the version
 * the node advertised, when the allowlist names one) and the connection's
 * ready set contains it. Pure: the caller supplies the pairing.
 *
 * @module
 */
import type { Pairing } from "../pairing/schema.ts"
import type { ConnectionEntry } from "../backplane/schema.ts"

/** The version of a descriptor that names none (reference §4: `CapabilityDescriptor.version` defaults to 1.0.0). */
export const DEFAULT_CAPABILITY_VERSION = "1.0.0"

/** Whether one connection may run a capability, and why not. */
export type Eligibility =
  | { readonly eligible: true }
  | { readonly eligible: false; readonly reason: string }

const ELIGIBLE: Eligibility = { eligible: true }
const refuse = (reason: string): Eligibility => ({ eligible: false, reason })

/**
 * Whether `connection` (whose node's pairing is `pairing`, `undefined` when it
 * has none) may run `capability`. Checked in this order, the first failure
 * is the reason: role node; paired; pairing approved; allowlisted; ready;
 * version. Version rule: an allowlist entry without `version` admits any
 * version; with one, the version the node advertised for the capability
 * (absent = {@link DEFAULT_CAPABILITY_VERSION}) must equal it.
 */
export const eligibility = (
  connection: ConnectionEntry,
  pairing: Pairing | undefined,
  capability: string
): Eligibility => {
  if (connection.role !== "node") return refuse("not a node")
  if (pairing === undefined) return refuse("not paired")
  if (pairing.status !== "approved") return refuse(`pairing is ${pairing.status}, not approved`)
  const allowed = pairing.capability_allowlist.filter((c) => c.id === capability)
  if (allowed.length === 0) return refuse(`${capability} is not in its capability allowlist`)
  if (!connection.readyCapabilities.has(capability)) return refuse(`${capability} is not ready`)
  if (allowed.some((c) => c.version === undefined)) return ELIGIBLE
  const version = connection.capabilities.find((c) => c.id === capability)?.version ?? DEFAULT_CAPABILITY_VERSION
  if (allowed.some((c) => c.version === version)) return ELIGIBLE
  return refuse(`${capability} ${version} is not an allowlisted version (${allowed.map((c) => c.version).join(", ")})`)
}
