/**
 * The work board subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { WorkContract } from "./contract.ts"
import { WorkTables } from "./tables.ts"
import { WorkWs } from "./transport/ws.ts"
import { Work, WORK_CHAIN } from "./Work.ts"

/**
 * The work board subsystem (src/subsystem/Subsystem.ts): what the composition
 * root (src/app/subsystems.ts) needs of it.
 */
export const WorkSubsystem: Subsystem<typeof WorkContract, typeof Work.layer, never, typeof WorkWs> = subsystem({
  contract: WorkContract,
  layer: Work.layer,
  ws: [WorkWs],
  tables: [...WorkTables],
  auditChains: [WORK_CHAIN]
})
