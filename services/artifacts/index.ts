/**
 * The artifacts subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Artifacts } from "./Artifacts.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { ArtifactsContract } from "./contract.ts"
import { ArtifactsHttp } from "./transport/http.ts"
import { ArtifactsTables } from "./tables.ts"
import { ARTIFACTS_CHAIN } from "./Artifacts.ts"

/** Run-scoped artifacts (docs/artifacts.md): the service the producers store through, wired for the gateway. */
export const ArtifactsLive = Artifacts.layer

/**
 * The artifacts subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const ArtifactsSubsystem: Subsystem<typeof ArtifactsContract, typeof ArtifactsLive, typeof ArtifactsHttp, never, never> = subsystem({
  contract: ArtifactsContract,
  layer: ArtifactsLive,
  http: [ArtifactsHttp],
  tables: [...ArtifactsTables],
  auditChains: [ARTIFACTS_CHAIN]
})
