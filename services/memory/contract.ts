/**
 * The memory subsystem's contract (src/subsystem/Subsystem.ts): its WebSocket
 * request types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { MemoryEvents } from "./events.ts"
import { MemoryCreate, MemoryDelete, MemoryForget, MemoryGet, MemoryList, MemorySearch, MemoryUpdate } from "./transport/wsApi.ts"

/** The memory subsystem's contract. */
export const MemoryContract: Contract<
  "memory",
  never,
  | typeof MemorySearch
  | typeof MemoryList
  | typeof MemoryGet
  | typeof MemoryCreate
  | typeof MemoryUpdate
  | typeof MemoryDelete
  | typeof MemoryForget,
  (typeof MemoryEvents)[number]
> = contract({
  name: "memory",
  ws: [MemorySearch, MemoryList, MemoryGet, MemoryCreate, MemoryUpdate, MemoryDelete, MemoryForget],
  events: MemoryEvents
})
