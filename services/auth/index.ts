/**
 * The auth subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { AuthService } from "./AuthService.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { AuthContract } from "./contract.ts"
import { AuthHttp, AuthSwitch } from "./transport/http.ts"
import { AuthTables } from "./tables.ts"
import { AuditChains } from "../domain-events/chains.ts"

/**
 * The auth subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const AuthSubsystem: Subsystem<typeof AuthContract, typeof AuthService.layer, typeof AuthHttp, never> = subsystem({
  contract: AuthContract,
  layer: AuthService.layer,
  http: [AuthHttp],
  switches: [AuthSwitch],
  tables: [...AuthTables],
  auditChains: [AuditChains.auth, AuditChains.deviceTokens]
})
