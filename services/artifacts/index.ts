/**
 * The artifacts subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Artifacts, ARTIFACTS_CHAIN } from "./Artifacts.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { ArtifactsContract } from "./contract.ts"
import { ArtifactsHttp } from "./transport/http.ts"
import { ArtifactsTables } from "./tables.ts"

/**
 * The artifacts subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const ArtifactsSubsystem: Subsystem<typeof ArtifactsContract, typeof Artifacts.layer, typeof ArtifactsHttp, never, never> = subsystem({
  contract: ArtifactsContract,
  layer: Artifacts.layer,
  http: [ArtifactsHttp],
  tables: [...ArtifactsTables],
  auditChains: [ARTIFACTS_CHAIN]
})
