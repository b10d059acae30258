/**
 * Policy: the effective bundle (sha256, sources, the merged bundle as JSON)
 * and its "approve always" overrides (list by status, create, revoke with a
 * reason). Every route here needs `operator.admin` for a device token; the
 * overrides list is live (`policy_override.*` events).
 */
import { Bundle } from "./Bundle.tsx"
import { Overrides } from "./Overrides.tsx"

/** The policy page. */
export default function PolicyPage() {
  return (
    <section aria-labelledby="policy-title">
      <h1 id="policy-title">Policy</h1>
      <Bundle />
      <Overrides />
    </section>
  )
}
