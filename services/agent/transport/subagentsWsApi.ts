/**
 * The subagents over WebSocket (gateway-api.md message table `subagent.*`;
 * reference §5.3; issue 25 §3; docs/agent.md "Subagents"): operator clients;
 * list and get need operator.read, spawn, send and close operator.write.
 * Every payload carries the WorkScope `tenant_id, agent_id, workspace_id`.
 * Answered `unsupported_request` unless `SVC_AGENT_ENABLED=1`.
 *
 * @module
 */
import { CLIENT, make } from "../../../src/ws/api/message.ts"
import * as S from "../subagents/schema.ts"

const READ = "operator.read"
const WRITE = "operator.write"
const scope = { tenant_id: "t1", agent_id: "default", workspace_id: "ws1" }
const id = "5f0c7a2e-9b1d-4e3a-8c6f-1d2e3f4a5b6c"
const subagent: S.Subagent = {
  subagent_id: id,
  ...scope,
  execution_profile: "research",
  session_key: `agent:default:subagent:${id}`,
  lane: "subagent",
  status: "running",
  created_at: "2026-11-27T10:00:00.000Z"
}

/** `subagent.spawn`. */
export const SubagentSpawn = make("subagent.spawn", {
  scope: WRITE, roles: CLIENT, payload: S.SubagentSpawnRequest, result: S.SubagentSpawnResult,
  description: "Spawns a subagent `running` in the WorkScope, with session key `agent:<agent_id>:subagent:<subagent_id>` and " +
    "lane `subagent`; answers `{subagent}`; event `subagent.spawned`.",
  example: { payload: { ...scope, execution_profile: "research" }, result: { subagent } }
})
/** `subagent.list`. */
export const SubagentList = make("subagent.list", {
  scope: READ, roles: CLIENT, payload: S.SubagentListRequest, result: S.SubagentListResult,
  description: "One page of the scope's subagents by `created_at` (filter `statuses`; `limit` clamped to 1..500, default 50); " +
    "`next_cursor` while more remain (`invalid_request` for a cursor the gateway did not issue).",
  example: { payload: { ...scope, statuses: ["running"] }, result: { subagents: [subagent] } }
})
/** `subagent.get`. */
export const SubagentGet = make("subagent.get", {
  scope: READ, roles: CLIENT, payload: S.SubagentGetRequest, result: S.SubagentGetResult,
  description: "One subagent (`not_found` when unknown in the scope).",
  example: { payload: { ...scope, subagent_id: id }, result: { subagent } }
})
/** `subagent.send`. */
export const SubagentSend = make("subagent.send", {
  scope: WRITE, roles: CLIENT, payload: S.SubagentSendRequest, result: S.SubagentSendResult,
  description: "Queues a message for the subagent (durably) and answers `{accepted: true}` at once; its turn runs in the " +
    "subagent's session and the reply arrives as `subagent.output {…, kind: \"final\", content}`. A failed turn marks the " +
    "subagent `failed` (`subagent.updated`). `not_found`; `invalid_state` unless the subagent is `running`.",
  example: { payload: { ...scope, subagent_id: id, content: "Summarise the open incidents" }, result: { accepted: true } }
})
/** `subagent.close`. */
export const SubagentClose = make("subagent.close", {
  scope: WRITE, roles: CLIENT, payload: S.SubagentCloseRequest, result: S.SubagentCloseResult,
  description: "Closes a subagent: `closing` (`subagent.updated`; its queued messages are cancelled, a running turn stopped), " +
    "then `closed` (`subagent.closed`); answers `{subagent}`. Closing a `closed` or `failed` subagent is a no-op answering it.",
  example: {
    payload: { ...scope, subagent_id: id, reason: "done" },
    result: { subagent: { ...subagent, status: "closed", updated_at: "2026-11-27T10:05:00.000Z", closed_at: "2026-11-27T10:05:00.000Z" } }
  }
})

/** Every `subagent.*` request type, in the spec's table order. */
export const SubagentMessages = [SubagentSpawn, SubagentList, SubagentGet, SubagentSend, SubagentClose] as const
