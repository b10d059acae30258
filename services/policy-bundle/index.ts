/**
 * The policy-bundle subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { PolicyBundle } from "./PolicyBundle.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { PolicyBundleContract } from "./contract.ts"
import { PolicyBundleHttp } from "./transport/http.ts"
import { PolicyBundleTables } from "./tables.ts"
import { PolicyBundleSettings } from "./settings.ts"
import { AuditChains } from "../domain-events/chains.ts"

/**
 * The policy-bundle subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const PolicyBundleSubsystem: Subsystem<typeof PolicyBundleContract, typeof PolicyBundle.layer, typeof PolicyBundleHttp, never, typeof PolicyBundleSettings> = subsystem({
  contract: PolicyBundleContract,
  layer: PolicyBundle.layer,
  http: [PolicyBundleHttp],
  tables: [...PolicyBundleTables],
  settings: [PolicyBundleSettings],
  auditChains: [AuditChains.policyOverrides]
})
