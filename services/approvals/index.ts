/**
 * The approvals subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Approvals } from "./Approvals.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { ApprovalsContract } from "./contract.ts"
import { ApprovalsHttp } from "./transport/http.ts"
import { ApprovalsWs } from "./transport/ws.ts"
import { ApprovalsTables } from "./tables.ts"
import { ApprovalsSettings } from "./settings.ts"

/**
 * The approvals subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const ApprovalsSubsystem: Subsystem<typeof ApprovalsContract, typeof Approvals.layer, typeof ApprovalsHttp, typeof ApprovalsWs, typeof ApprovalsSettings> = subsystem({
  contract: ApprovalsContract,
  layer: Approvals.layer,
  http: [ApprovalsHttp],
  ws: [ApprovalsWs],
  tables: [...ApprovalsTables],
  settings: [ApprovalsSettings]
})
