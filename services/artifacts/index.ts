/**
 * The artifacts subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Layer } from "effect"
import { Artifacts, ARTIFACTS_CHAIN } from "./Artifacts.ts"
import { ArtifactRetention } from "./retentionJob.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { ArtifactsContract } from "./contract.ts"
import { ArtifactsHttp } from "./transport/http.ts"
import { ArtifactsTables } from "./tables.ts"
import { ArtifactsSettings } from "./settings.ts"

/** The artifacts service (wired for the gateway) with its retention sweep running. */
const layer = ArtifactRetention.layer.pipe(Layer.provideMerge(Artifacts.layer))

/**
 * The artifacts subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const ArtifactsSubsystem: Subsystem<typeof ArtifactsContract, typeof layer, typeof ArtifactsHttp, never, typeof ArtifactsSettings> = subsystem({
  contract: ArtifactsContract,
  layer,
  http: [ArtifactsHttp],
  tables: [...ArtifactsTables],
  settings: [ArtifactsSettings],
  auditChains: [ARTIFACTS_CHAIN]
})
