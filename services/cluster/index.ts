/**
 * The cluster subsystem's descriptor (docs/architecture.md "Subsystems";
 * docs/scaling.md): its settings (`SVC_CLUSTER`, `SVC_ROLE`,
 * `SVC_CLUSTER_SECRET`, `SVC_RUNNER_HOST`, `SVC_RUNNER_PORT`,
 * `SVC_REDIS_URL`), the master key and runner port checks at start and its tables.
 *
 * @module
 */
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { Layer } from "effect"
import { ClusterKey } from "./ClusterKey.ts"
import { ClusterContract } from "./contract.ts"
import { RunnerPortCheck } from "./RunnerPortCheck.ts"
import { ClusterSettings } from "./settings.ts"
import { ClusterTables } from "./tables.ts"

/** The checks at start: the master key ({@link ClusterKey}) and the runner port ({@link RunnerPortCheck}). */
const ClusterLive = Layer.merge(ClusterKey.layer, RunnerPortCheck)

/**
 * The cluster subsystem (src/subsystem/Subsystem.ts): what the composition
 * root (src/app/subsystems.ts) needs of it.
 */
export const ClusterSubsystem: Subsystem<typeof ClusterContract, typeof ClusterLive, never, never, typeof ClusterSettings> = subsystem({
  contract: ClusterContract,
  layer: ClusterLive,
  tables: ClusterTables,
  settings: [ClusterSettings]
})
