/**
 * The memory subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Layer } from "effect"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { MemoryContract } from "./contract.ts"
import { Memory, MEMORY_CHAIN } from "./Memory.ts"
import { MemoryExports } from "./MemoryExports.ts"
import { MemoryTables } from "./tables.ts"
import { MemoryExportsHttp } from "./transport/http.ts"
import { MemoryWs } from "./transport/ws.ts"

/** The memory service and its exports, wired for the gateway. */
const layer = Layer.merge(Memory.layer, MemoryExports.layer)

/**
 * The memory subsystem (src/subsystem/Subsystem.ts): what the composition
 * root (src/app/subsystems.ts) needs of it.
 */
export const MemorySubsystem: Subsystem<typeof MemoryContract, typeof layer, typeof MemoryExportsHttp, typeof MemoryWs> = subsystem({
  contract: MemoryContract,
  layer,
  http: [MemoryExportsHttp],
  ws: [MemoryWs],
  tables: [...MemoryTables],
  auditChains: [MEMORY_CHAIN]
})
