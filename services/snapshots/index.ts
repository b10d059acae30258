/**
 * The snapshots subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Snapshots } from "./Snapshots.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { SnapshotsContract } from "./contract.ts"
import { SnapshotsHttp } from "./transport/http.ts"
import { SnapshotsSettings } from "./settings.ts"

/**
 * The snapshots subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const SnapshotsSubsystem: Subsystem<typeof SnapshotsContract, typeof Snapshots.layer, typeof SnapshotsHttp, never, typeof SnapshotsSettings> = subsystem({
  contract: SnapshotsContract,
  layer: Snapshots.layer,
  http: [SnapshotsHttp],
  settings: [SnapshotsSettings]
})
