/**
 * The memory subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { MemoryContract } from "./contract.ts"
import { Memory, MEMORY_CHAIN } from "./Memory.ts"
import { MemorySettings } from "./settings.ts"
import { MemoryTables } from "./tables.ts"
import { MemoryWs } from "./transport/ws.ts"

/**
 * The memory subsystem (src/subsystem/Subsystem.ts): what the composition
 * root (src/app/subsystems.ts) needs of it.
 */
export const MemorySubsystem: Subsystem<typeof MemoryContract, typeof Memory.layer, never, typeof MemoryWs, typeof MemorySettings> = subsystem({
  contract: MemoryContract,
  layer: Memory.layer,
  ws: [MemoryWs],
  settings: [MemorySettings],
  tables: [...MemoryTables],
  auditChains: [MEMORY_CHAIN]
})
