/**
 * The playbooks subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Playbooks } from "./Playbooks.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { PlaybooksContract } from "./contract.ts"
import { PlaybooksHttp } from "./transport/http.ts"

/**
 * The playbooks subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const PlaybooksSubsystem: Subsystem<typeof PlaybooksContract, typeof Playbooks.layer, typeof PlaybooksHttp, never> = subsystem({
  contract: PlaybooksContract,
  layer: Playbooks.layer,
  http: [PlaybooksHttp]
})
