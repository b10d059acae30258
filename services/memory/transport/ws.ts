/** Handlers of the `memory.*` request types (transport/wsApi.ts): one call to `Memory` (or `MemoryExports`) each. */
import { Effect } from "effect"
import { handlers } from "../../../src/ws/dispatch.ts"
import { Memory } from "../Memory.ts"
import { MemoryExports } from "../MemoryExports.ts"
import { MemoryCreate, MemoryDelete, MemoryExport, MemoryForget, MemoryGet, MemoryList, MemorySearch, MemoryUpdate } from "./wsApi.ts"

/** Memory handlers; need {@link Memory} and {@link MemoryExports}. */
export const MemoryWs = handlers(
  [MemorySearch, MemoryList, MemoryGet, MemoryCreate, MemoryUpdate, MemoryDelete, MemoryForget, MemoryExport],
  Effect.gen(function*() {
    const memory = yield* Memory
    const exports = yield* MemoryExports
    return {
      "memory.search": (request) => memory.search(request),
      "memory.list": (request) => memory.list(request),
      "memory.get": ({ memory_item_id, agent_id }) => memory.get(memory_item_id, agent_id),
      "memory.create": ({ item }) => memory.create(item),
      "memory.update": ({ memory_item_id, patch, agent_id }) => memory.update(memory_item_id, patch, agent_id),
      "memory.delete": ({ memory_item_id, reason, agent_id }) => memory.delete(memory_item_id, reason, agent_id),
      "memory.forget": (request) => memory.forget(request),
      "memory.export": (request) => exports.export(request)
    }
  })
)
