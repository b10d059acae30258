/**
 * The workflow subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { WorkflowLive } from "./Workflow.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { WorkflowContract } from "./contract.ts"
import { WorkflowHttp } from "./transport/http.ts"
import { WorkflowWs } from "./transport/ws.ts"
import { WorkflowTables } from "./tables.ts"
import { WorkflowSettings } from "./settings.ts"

/**
 * The workflow subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const WorkflowSubsystem: Subsystem<typeof WorkflowContract, typeof WorkflowLive, typeof WorkflowHttp, typeof WorkflowWs, typeof WorkflowSettings> = subsystem({
  contract: WorkflowContract,
  layer: WorkflowLive,
  http: [WorkflowHttp],
  ws: [WorkflowWs],
  tables: [...WorkflowTables],
  settings: [WorkflowSettings]
})
