/**
 * Memory over WebSocket (gateway-api.md message table `memory.*`; reference
 * §5.3; docs/memory.md): operator clients only; reads need operator.read,
 * writes operator.write. Every payload may carry `v: 1`; every result does.
 * `limit` is clamped to 1..500 (default 50), never refused.
 */
import {
  MemoryCreateRequest,
  MemoryDeleteRequest,
  MemoryDeleteResult,
  MemoryForgetRequest,
  MemoryForgetResult,
  MemoryGetRequest,
  MemoryItemResult,
  MemoryListRequest,
  MemoryListResult,
  MemorySearchRequest,
  MemorySearchResult,
  MemoryUpdateRequest
} from "../schema.ts"
import { CLIENT, make } from "../../../src/ws/api/message.ts"
import { MemoryExportRequest, MemoryExportResult } from "../exportSchema.ts"

const id = "0b9f6c1e-3c1a-4f57-9a51-5d2f0c6f7a10"
const note = {
  v: 1,
  memory_item_id: id,
  agent_id: "default",
  kind: "note",
  tags: ["deploy"],
  sensitivity: "private",
  provenance: { source_kind: "operator", refs: [] },
  title: "Deploy checklist",
  body_md: "Run the migrations before the deploy.",
  created_at: "2026-11-27T10:00:00.000Z"
}

/** `memory.search`: ranked keyword search, best first, `score` 0..1, `snippet` with the match in `[…]`. */
export const MemorySearch = make("memory.search", {
  scope: "operator.read",
  roles: CLIENT,
  payload: MemorySearchRequest,
  result: MemorySearchResult,
  description: "Ranked keyword search over an agent's items (title, body, summary, key, value, tags; filter as " +
    "`memory.list`), best first; `score` is 0..1 and `snippet` marks the match with `[` `]`.",
  example: {
    payload: { v: 1, query: "deploy", limit: 10 },
    result: {
      v: 1,
      hits: [{
        memory_item_id: id,
        kind: "note",
        score: 0.42,
        snippet: "[Deploy] checklist — Run the migrations before the [deploy].",
        provenance: { source_kind: "operator", refs: [] }
      }]
    }
  }
})

/** `memory.list`: one page of an agent's items, newest first. */
export const MemoryList = make("memory.list", {
  scope: "operator.read",
  roles: CLIENT,
  payload: MemoryListRequest,
  result: MemoryListResult,
  description: "One page of an agent's items, newest first (filter: `agent_id` default `default`, `kinds`, `tags` all " +
    "of, `sensitivities`, `provenance.source_kinds`, `created_after`/`created_before`); `next_cursor` while more remain.",
  example: { payload: { v: 1, filter: { kinds: ["note"], tags: ["deploy"] }, limit: 20 }, result: { v: 1, items: [note] } }
})

/** `memory.get`: one item (`not_found` "memory item not found"). */
export const MemoryGet = make("memory.get", {
  scope: "operator.read",
  roles: CLIENT,
  payload: MemoryGetRequest,
  result: MemoryItemResult,
  description: "One item of an agent (`agent_id` default `default`); `not_found` \"memory item not found\".",
  example: { payload: { v: 1, memory_item_id: id }, result: { v: 1, item: note } }
})

/** `memory.create`: stores a new item. */
export const MemoryCreate = make("memory.create", {
  scope: "operator.write",
  roles: CLIENT,
  payload: MemoryCreateRequest,
  result: MemoryItemResult,
  description: "Stores a new item (`item.agent_id` default `default`, `sensitivity` default `private`, `provenance` " +
    "default `{source_kind: \"operator\"}`); event `memory.item.created`.",
  example: {
    payload: { v: 1, item: { kind: "note", title: "Deploy checklist", body_md: "Run the migrations before the deploy.", tags: ["deploy"] } },
    result: { v: 1, item: note }
  }
})

/** `memory.update`: patches an item within its kind. */
export const MemoryUpdate = make("memory.update", {
  scope: "operator.write",
  roles: CLIENT,
  payload: MemoryUpdateRequest,
  result: MemoryItemResult,
  description: "Patches an item (common fields and its kind's); a field of another kind is `invalid_request` " +
    "\"incompatible patch fields for kind=<kind>: <fields>\"; event `memory.item.updated`.",
  example: {
    payload: { v: 1, memory_item_id: id, patch: { tags: ["deploy", "ops"] } },
    result: { v: 1, item: { ...note, tags: ["deploy", "ops"], updated_at: "2026-11-27T10:05:00.000Z" } }
  }
})

/** `memory.delete`: deletes an item, leaving a tombstone. */
export const MemoryDelete = make("memory.delete", {
  scope: "operator.write",
  roles: CLIENT,
  payload: MemoryDeleteRequest,
  result: MemoryDeleteResult,
  description: "Deletes an item and answers its tombstone (`deleted_by: \"operator\"`); event `memory.item.deleted`.",
  example: {
    payload: { v: 1, memory_item_id: id, reason: "outdated" },
    result: {
      v: 1,
      tombstone: { v: 1, memory_item_id: id, agent_id: "default", deleted_at: "2026-11-27T10:06:00.000Z", deleted_by: "operator", reason: "outdated" }
    }
  }
})

/** `memory.forget`: deletes every item a selector matches, with `confirm: "FORGET"`. */
export const MemoryForget = make("memory.forget", {
  scope: "operator.write",
  roles: CLIENT,
  payload: MemoryForgetRequest,
  result: MemoryForgetResult,
  description: "Deletes an agent's items matching any selector (`id`, fact `key`, `tag`, `provenance` source kind), " +
    "each leaving a tombstone; needs `confirm: \"FORGET\"` exactly (else `invalid_request`); event `memory.item.forgotten`.",
  example: {
    payload: { v: 1, confirm: "FORGET", selectors: [{ kind: "tag", tag: "deploy" }] },
    result: {
      v: 1,
      deleted_count: 1,
      tombstones: [{ v: 1, memory_item_id: id, agent_id: "default", deleted_at: "2026-11-27T10:06:00.000Z", deleted_by: "operator" }]
    }
  }
})

/** `memory.export`: writes an agent's items (and, when asked, tombstones) into an export artifact. */
export const MemoryExport = make("memory.export", {
  scope: "operator.write",
  roles: CLIENT,
  payload: MemoryExportRequest,
  result: MemoryExportResult,
  description: "Writes every item of an agent matching `filter` (as `memory.list`; `agent_id` default `default`) and, " +
    "with `include_tombstones: true`, the agent's tombstones into one JSON artifact (labels `memory`, `memory_v1`, " +
    "`export`) and answers its id; download it with `GET /memory/exports/<artifact_id>`. Event `memory.export.completed`.",
  example: {
    payload: { v: 1, filter: { tags: ["deploy"] }, include_tombstones: true },
    result: { v: 1, artifact_id: "7c1f2a8e-5b4d-4e3f-9a21-0d6e8b4c2f19" }
  }
})
