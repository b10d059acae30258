/**
 * The memory subsystem's contract (src/subsystem/Subsystem.ts): its WebSocket
 * request types, its HTTP export download and its events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { MemoryEvents } from "./events.ts"
import { MemoryExportsApi } from "./transport/httpApi.ts"
import {
  MemoryCreate,
  MemoryDelete,
  MemoryExport,
  MemoryForget,
  MemoryGet,
  MemoryList,
  MemorySearch,
  MemoryUpdate
} from "./transport/wsApi.ts"

/** The memory subsystem's contract. */
export const MemoryContract: Contract<
  "memory",
  typeof MemoryExportsApi,
  | typeof MemorySearch
  | typeof MemoryList
  | typeof MemoryGet
  | typeof MemoryCreate
  | typeof MemoryUpdate
  | typeof MemoryDelete
  | typeof MemoryForget
  | typeof MemoryExport,
  (typeof MemoryEvents)[number]
> = contract({
  name: "memory",
  http: [MemoryExportsApi],
  ws: [MemorySearch, MemoryList, MemoryGet, MemoryCreate, MemoryUpdate, MemoryDelete, MemoryForget, MemoryExport],
  events: MemoryEvents
})
