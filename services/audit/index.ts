/**
 * The audit subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { AuditLog } from "./AuditLog.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { AuditContract } from "./contract.ts"
import { AuditHttp } from "./transport/http.ts"
import { AuditTables } from "./tables.ts"

/**
 * The audit subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const AuditSubsystem: Subsystem<typeof AuditContract, typeof AuditLog.layer, typeof AuditHttp, never> = subsystem({
  contract: AuditContract,
  layer: AuditLog.layer,
  http: [AuditHttp],
  tables: [...AuditTables]
})
