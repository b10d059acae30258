/**
 * The nodes subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { NodesLive } from "./Nodes.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { NodesContract } from "./contract.ts"
import { NodesTables } from "./tables.ts"
import { NodesHttp } from "./transport/http.ts"
import { NodesWs } from "./transport/ws.ts"

/**
 * The nodes subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const NodesSubsystem: Subsystem<typeof NodesContract, typeof NodesLive, typeof NodesHttp, typeof NodesWs> = subsystem({
  contract: NodesContract,
  layer: NodesLive,
  tables: NodesTables,
  http: [NodesHttp],
  ws: [NodesWs]
})
