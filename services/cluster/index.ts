/**
 * The cluster subsystem's descriptor (docs/architecture.md "Subsystems";
 * docs/scaling.md): its settings (`SVC_CLUSTER`, `SVC_ROLE`,
 * `SVC_CLUSTER_SECRET`, `SVC_RUNNER_HOST`, `SVC_RUNNER_PORT`,
 * `SVC_REDIS_URL`), the master key check at start and its tables.
 *
 * @module
 */
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { ClusterKey } from "./ClusterKey.ts"
import { ClusterContract } from "./contract.ts"
import { ClusterSettings } from "./settings.ts"
import { ClusterTables } from "./tables.ts"

/**
 * The cluster subsystem (src/subsystem/Subsystem.ts): what the composition
 * root (src/app/subsystems.ts) needs of it.
 */
export const ClusterSubsystem: Subsystem<typeof ClusterContract, typeof ClusterKey.layer, never, never, typeof ClusterSettings> = subsystem({
  contract: ClusterContract,
  layer: ClusterKey.layer,
  tables: ClusterTables,
  settings: [ClusterSettings]
})
