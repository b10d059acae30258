/**
 * Wire shapes of the subagents (issue 25 §3; reference §5.3 `subagent.*`;
 * gateway-api.md message table `WsSubagent*`; docs/agent.md "Subagents").
 * Every payload carries the WorkScope `{tenant_id, agent_id, workspace_id}`
 * flat (the work board's fields; `agent_id` is an agent id, since the
 * subagent's turns run as that agent). Times are ISO-8601 UTC strings.
 *
 * @module
 */
import { Schema } from "effect"
import { AgentId } from "../../shared/agent.ts"
import { nonEmptyText } from "../../shared/schemas.ts"
import { WorkScopeFields } from "../../work/schema.ts"

/** The WorkScope of a subagent: the work board's, with `agent_id` an agent id (1–64 letters, digits, `_`, `-`, `.`). */
export const SubagentScopeFields = { ...WorkScopeFields, agent_id: AgentId }

/** `{tenant_id, agent_id, workspace_id}`. */
export const SubagentScope = Schema.Struct(SubagentScopeFields)
export type SubagentScope = typeof SubagentScope.Type

/** `running` (accepts messages), `closing` (being closed), `closed`, `failed` (a turn failed; terminal). */
export const SubagentStatus = Schema.Literals(["running", "closing", "closed", "failed"])
export type SubagentStatus = typeof SubagentStatus.Type

/** The lane subagent turns run in (reference §7 lanes: main, cron, heartbeat, subagent). */
export const SUBAGENT_LANE = "subagent"

/** A subagent's descriptor (reference §5.3). */
export const Subagent = Schema.Struct({
  subagent_id: Schema.String,
  ...SubagentScopeFields,
  work_item_id: Schema.optionalKey(Schema.String),
  work_item_task_id: Schema.optionalKey(Schema.String),
  execution_profile: Schema.String,
  session_key: Schema.String.annotate({ description: "`agent:<agent_id>:subagent:<subagent_id>`" }),
  lane: Schema.Literal(SUBAGENT_LANE),
  status: SubagentStatus,
  created_at: Schema.String,
  last_heartbeat_at: Schema.optionalKey(Schema.String).annotate({ description: "When a turn of the subagent last started or ended." }),
  updated_at: Schema.optionalKey(Schema.String),
  closed_at: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "Subagent" })
export type Subagent = typeof Subagent.Type

const Id = nonEmptyText(128)

/** `subagent.spawn`: WorkScope + `{execution_profile, work_item_id?, work_item_task_id?}`. */
export const SubagentSpawnRequest = Schema.Struct({
  ...SubagentScopeFields,
  execution_profile: nonEmptyText(128),
  work_item_id: Schema.optionalKey(Id),
  work_item_task_id: Schema.optionalKey(Id)
}).annotate({ identifier: "WsSubagentSpawnRequest" })
export type SubagentSpawnRequest = typeof SubagentSpawnRequest.Type

const SubagentFields = { subagent: Subagent }

/** `{subagent}`: the spawned subagent, `running`. */
export const SubagentSpawnResult = Schema.Struct(SubagentFields).annotate({ identifier: "WsSubagentSpawnResult" })
/** `{subagent}`. */
export const SubagentGetResult = Schema.Struct(SubagentFields).annotate({ identifier: "WsSubagentGetResult" })
/** `{subagent}`: the subagent after the close (`closed`, or `failed` when it had failed). */
export const SubagentCloseResult = Schema.Struct(SubagentFields).annotate({ identifier: "WsSubagentCloseResult" })
/** `{subagent}`: the answer of spawn, get and close. */
export type SubagentResult = typeof SubagentSpawnResult.Type

/** `subagent.list`: WorkScope + `{statuses?, limit? (clamped to 1..500, default 50), cursor?}`. */
export const SubagentListRequest = Schema.Struct({
  ...SubagentScopeFields,
  statuses: Schema.optionalKey(Schema.Array(SubagentStatus)),
  limit: Schema.optionalKey(Schema.Int),
  cursor: Schema.optionalKey(nonEmptyText(500))
}).annotate({ identifier: "WsSubagentListRequest" })
export type SubagentListRequest = typeof SubagentListRequest.Type

/** `{subagents, next_cursor?}`: one page by `created_at`, oldest first. */
export const SubagentListResult = Schema.Struct({
  subagents: Schema.Array(Subagent),
  next_cursor: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "WsSubagentListResult" })
export type SubagentListResult = typeof SubagentListResult.Type

/** `subagent.get`: WorkScope + `{subagent_id}`. */
export const SubagentGetRequest = Schema.Struct({ ...SubagentScopeFields, subagent_id: Id })
  .annotate({ identifier: "WsSubagentGetRequest" })
export type SubagentGetRequest = typeof SubagentGetRequest.Type

/** `subagent.send`: WorkScope + `{subagent_id, content}` (1–32,000 characters). */
export const SubagentSendRequest = Schema.Struct({ ...SubagentScopeFields, subagent_id: Id, content: nonEmptyText(32_000) })
  .annotate({ identifier: "WsSubagentSendRequest" })
export type SubagentSendRequest = typeof SubagentSendRequest.Type

/** `{accepted: true}`: the message is queued; the reply comes as `subagent.output`. */
export const SubagentSendResult = Schema.Struct({ accepted: Schema.Literal(true) }).annotate({ identifier: "WsSubagentSendResult" })
export type SubagentSendResult = typeof SubagentSendResult.Type

/** `subagent.close`: WorkScope + `{subagent_id, reason?}`. */
export const SubagentCloseRequest = Schema.Struct({ ...SubagentScopeFields, subagent_id: Id, reason: Schema.optionalKey(nonEmptyText(2000)) })
  .annotate({ identifier: "WsSubagentCloseRequest" })
export type SubagentCloseRequest = typeof SubagentCloseRequest.Type
