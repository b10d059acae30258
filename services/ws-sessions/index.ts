/**
 * The sessions subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { WsSessionsLive } from "./WsSessions.ts"
import { BackplaneTables } from "../backplane/tables.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { SessionsContract } from "./contract.ts"
import { DiagnosticsHttp } from "./transport/http.ts"
import { SessionsWs } from "./transport/ws.ts"

/**
 * The sessions subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const SessionsSubsystem: Subsystem<typeof SessionsContract, typeof WsSessionsLive, typeof DiagnosticsHttp, typeof SessionsWs> = subsystem({
  contract: SessionsContract,
  layer: WsSessionsLive,
  http: [DiagnosticsHttp],
  ws: [SessionsWs],
  // The backplane (services/backplane/) carries this subsystem's deliveries; its PostgreSQL tables are declared here.
  tables: BackplaneTables
})
