/**
 * The routing subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { RoutingConfigService } from "./RoutingConfigService.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { RoutingContract } from "./contract.ts"
import { RoutingHttp, RoutingSwitch } from "./transport/http.ts"
import { RoutingTables } from "./tables.ts"
import { AuditChains } from "../domain-events/chains.ts"

/**
 * The routing subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const RoutingSubsystem: Subsystem<typeof RoutingContract, typeof RoutingConfigService.layer, typeof RoutingHttp, never> = subsystem({
  contract: RoutingContract,
  layer: RoutingConfigService.layer,
  http: [RoutingHttp],
  switches: [RoutingSwitch],
  tables: [...RoutingTables],
  auditChains: [AuditChains.routing]
})
