/**
 * The canvas subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { Canvas } from "./Canvas.ts"
import { CANVAS_CHAIN } from "./chains.ts"
import { CanvasContract } from "./contract.ts"
import { CanvasSettings } from "./settings.ts"
import { CanvasTables } from "./tables.ts"
import { CanvasHttp } from "./transport/http.ts"

/**
 * The canvas subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const CanvasSubsystem: Subsystem<typeof CanvasContract, typeof Canvas.layer, typeof CanvasHttp, never, typeof CanvasSettings> = subsystem({
  contract: CanvasContract,
  layer: Canvas.layer,
  http: [CanvasHttp],
  tables: [...CanvasTables],
  settings: [CanvasSettings],
  auditChains: [CANVAS_CHAIN]
})
