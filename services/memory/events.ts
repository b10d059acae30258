/**
 * Events of the memory subsystem (reference §5.3), to operator clients
 * holding `operator.read` (the admin token always). Payloads carry `v: 1`.
 *
 * @module
 */
import { Schema } from "effect"
import { make, OPERATORS_READ } from "../ws-sessions/GatewayEvent.ts"
import { MemoryExportCompletedPayload } from "./exportSchema.ts"
import { MemoryItem, MemoryTombstone, MemoryVersion } from "./schema.ts"

/** `memory.item.created {v, item}`. */
export const MemoryItemCreated = make("memory.item.created", {
  payload: Schema.Struct({ v: MemoryVersion, item: MemoryItem }),
  audience: OPERATORS_READ
})

/** `memory.item.updated {v, item}`: the item after the patch. */
export const MemoryItemUpdated = make("memory.item.updated", {
  payload: Schema.Struct({ v: MemoryVersion, item: MemoryItem }),
  audience: OPERATORS_READ
})

/** `memory.item.deleted {v, tombstone}`: one item deleted by `memory.delete`. */
export const MemoryItemDeleted = make("memory.item.deleted", {
  payload: Schema.Struct({ v: MemoryVersion, tombstone: MemoryTombstone }),
  audience: OPERATORS_READ
})

/** `memory.item.forgotten {v, deleted_count, tombstones}`: the items one `memory.forget` removed (sent when it removed any). */
export const MemoryItemForgotten = make("memory.item.forgotten", {
  payload: Schema.Struct({ v: MemoryVersion, deleted_count: Schema.Int, tombstones: Schema.Array(MemoryTombstone) }),
  audience: OPERATORS_READ
})

/** `memory.export.completed {v, artifact_id, agent_id, item_count, tombstone_count}`: an export artifact is stored. */
export const MemoryExportCompleted = make("memory.export.completed", {
  payload: MemoryExportCompletedPayload,
  audience: OPERATORS_READ
})

/** Every event type of this subsystem. */
export const MemoryEvents = [MemoryItemCreated, MemoryItemUpdated, MemoryItemDeleted, MemoryItemForgotten, MemoryExportCompleted] as const
