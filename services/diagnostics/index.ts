/**
 * The diagnostics subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Diagnostics } from "./Diagnostics.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { DiagnosticsContract } from "./contract.ts"
import { RuntimeHttp } from "./transport/http.ts"
import { DiagnosticsSettings } from "./settings.ts"

/**
 * The diagnostics subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const DiagnosticsSubsystem: Subsystem<typeof DiagnosticsContract, typeof Diagnostics.layer, typeof RuntimeHttp, never, typeof DiagnosticsSettings> = subsystem({
  contract: DiagnosticsContract,
  layer: Diagnostics.layer,
  http: [RuntimeHttp],
  settings: [DiagnosticsSettings]
})
