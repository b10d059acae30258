/**
 * The policy subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { PolicyService } from "./PolicyService.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { PolicyContract } from "./contract.ts"
import { PolicyHttp } from "./transport/http.ts"

/**
 * The policy subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const PolicySubsystem: Subsystem<typeof PolicyContract, typeof PolicyService.layer, typeof PolicyHttp, never> = subsystem({
  contract: PolicyContract,
  layer: PolicyService.layer,
  http: [PolicyHttp]
})

export * from "./engine.ts"
export * from "./PolicyService.ts"
