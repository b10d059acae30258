/**
 * The canvas subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints — schemas only, what the
 * clients load. Canvas pages send no WebSocket events (the audit chain records each publish).
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { CanvasApi } from "./transport/httpApi.ts"

/** The canvas subsystem's contract. */
export const CanvasContract: Contract<"canvas", typeof CanvasApi, never, never> = contract({ name: "canvas", http: [CanvasApi] })
