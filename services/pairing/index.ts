/**
 * The pairing subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Pairings } from "./Pairings.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { PairingContract } from "./contract.ts"
import { PairingHttp } from "./transport/http.ts"
import { PairingWs } from "./transport/ws.ts"
import { PairingTables } from "./tables.ts"
import { AuditChains } from "../domain-events/chains.ts"

/**
 * The pairing subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const PairingSubsystem: Subsystem<typeof PairingContract, typeof Pairings.layer, typeof PairingHttp, typeof PairingWs> = subsystem({
  contract: PairingContract,
  layer: Pairings.layer,
  http: [PairingHttp],
  ws: [PairingWs],
  tables: [...PairingTables],
  auditChains: [AuditChains.pairing]
})
