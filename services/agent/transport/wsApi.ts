/**
 * The agent runtime over WebSocket (gateway-api.md message table
 * `session.send`, `command.execute`, `subagent.*`; reference §5.3; issue 25
 * §3; docs/agent.md): operator clients. `session.send` needs operator.write,
 * `command.execute` operator.admin; of the subagent types, list and get need
 * operator.read, spawn, send and close operator.write, and every subagent
 * payload carries the WorkScope `tenant_id, agent_id, workspace_id`.
 * Answered `unsupported_request` unless
 * `SVC_AGENT_ENABLED=1`.
 *
 * @module
 */
import { CLIENT, make } from "../../../src/ws/api/message.ts"
import { CommandExecuteRequest, CommandExecuteResult, SessionSendRequest, SessionSendResult } from "../schema.ts"
import * as S from "../subagents/schema.ts"

/** `session.send`: one turn of the agent's session for (channel, thread_id), synchronously. */
export const SessionSend = make("session.send", {
  scope: "operator.write",
  roles: CLIENT,
  payload: SessionSendRequest,
  result: SessionSendResult,
  description: "Runs one agent turn in the session of (`agent_id` default `default`, `channel`, `thread_id`) and " +
    "answers the reply; `typing.*`, `message.delta` and `message.final` stream meanwhile. `agent_runtime_error` when " +
    "the provider fails; `unsupported_request` unless SVC_AGENT_ENABLED=1.",
  example: {
    payload: { channel: "operator", thread_id: "console", content: "Hello" },
    result: { session_id: "4b0c2f9e-8a61-4d3b-9e1f-2c7a5d8b6e40", assistant_message: "Hello" }
  }
})

/** `command.execute`: one slash command (services/agent/commands.ts; docs/agent.md "Slash commands"). */
export const CommandExecute = make("command.execute", {
  scope: "operator.admin",
  roles: CLIENT,
  payload: CommandExecuteRequest,
  result: CommandExecuteResult,
  description: "Runs one slash command (`/help` lists them: /new, /reset, /stop, /compact, /status, /presence, " +
    "/approvals, /pairings, /policy, /context, /usage, /model, /queue, /send) and answers `{output, data?}`: the text " +
    "to show and the structured result. Session commands act on the session of (`agent_id` default `default`, " +
    "`channel` default `operator`, `thread_id` default `console`); `key` and `lane` are accepted and not used. " +
    "`invalid_request` for text not starting with `/`, an unknown command (listing the known ones) or a bad " +
    "argument; `unsupported_request` unless SVC_AGENT_ENABLED=1.",
  example: {
    payload: { command: "/model openai/gpt-4.1-mini", channel: "operator", thread_id: "console" },
    result: {
      output: "Model set to openai/gpt-4.1-mini.",
      data: {
        model: "openai/gpt-4.1-mini",
        session_model: "openai/gpt-4.1-mini",
        default_model: "builtin/echo",
        session: { session_id: "4b0c2f9e-8a61-4d3b-9e1f-2c7a5d8b6e40", agent_id: "default", channel: "operator", thread_id: "console" }
      }
    }
  }
})

const READ = "operator.read"
const WRITE = "operator.write"
const subagentScope = { tenant_id: "t1", agent_id: "default", workspace_id: "ws1" }
const subagentId = "5f0c7a2e-9b1d-4e3a-8c6f-1d2e3f4a5b6c"
const exampleSubagent: S.Subagent = {
  subagent_id: subagentId,
  ...subagentScope,
  execution_profile: "research",
  session_key: `agent:default:subagent:${subagentId}`,
  lane: "subagent",
  status: "running",
  created_at: "2026-11-27T10:00:00.000Z"
}

/** `subagent.spawn`. */
export const SubagentSpawn = make("subagent.spawn", {
  scope: WRITE, roles: CLIENT, payload: S.SubagentSpawnRequest, result: S.SubagentSpawnResult,
  description: "Spawns a subagent `running` in the WorkScope, with session key `agent:<agent_id>:subagent:<subagent_id>` and " +
    "lane `subagent`; answers `{subagent}`; event `subagent.spawned`.",
  example: { payload: { ...subagentScope, execution_profile: "research" }, result: { subagent: exampleSubagent } }
})
/** `subagent.list`. */
export const SubagentList = make("subagent.list", {
  scope: READ, roles: CLIENT, payload: S.SubagentListRequest, result: S.SubagentListResult,
  description: "One page of the scope's subagents by `created_at` (filter `statuses`; `limit` clamped to 1..500, default 50); " +
    "`next_cursor` while more remain (`invalid_request` for a cursor the gateway did not issue).",
  example: { payload: { ...subagentScope, statuses: ["running"] }, result: { subagents: [exampleSubagent] } }
})
/** `subagent.get`. */
export const SubagentGet = make("subagent.get", {
  scope: READ, roles: CLIENT, payload: S.SubagentGetRequest, result: S.SubagentGetResult,
  description: "One subagent (`not_found` when unknown in the scope).",
  example: { payload: { ...subagentScope, subagent_id: subagentId }, result: { subagent: exampleSubagent } }
})
/** `subagent.send`. */
export const SubagentSend = make("subagent.send", {
  scope: WRITE, roles: CLIENT, payload: S.SubagentSendRequest, result: S.SubagentSendResult,
  description: "Queues a message for the subagent (durably) and answers `{accepted: true}` at once; its turn runs in the " +
    "subagent's session and the reply arrives as `subagent.output {…, kind: \"final\", content}`. A failed turn marks the " +
    "subagent `failed` (`subagent.updated`). `not_found`; `invalid_state` unless the subagent is `running`.",
  example: { payload: { ...subagentScope, subagent_id: subagentId, content: "Summarise the open incidents" }, result: { accepted: true } }
})
/** `subagent.close`. */
export const SubagentClose = make("subagent.close", {
  scope: WRITE, roles: CLIENT, payload: S.SubagentCloseRequest, result: S.SubagentCloseResult,
  description: "Closes a subagent: `closing` (`subagent.updated`; its queued messages are cancelled, a running turn stopped), " +
    "then `closed` (`subagent.closed`); answers `{subagent}`. Closing a `closed` or `failed` subagent is a no-op answering it.",
  example: {
    payload: { ...subagentScope, subagent_id: subagentId, reason: "done" },
    result: { subagent: { ...exampleSubagent, status: "closed", updated_at: "2026-11-27T10:05:00.000Z", closed_at: "2026-11-27T10:05:00.000Z" } }
  }
})

/** Every `subagent.*` request type, in the spec's table order. */
export const SubagentMessages = [SubagentSpawn, SubagentList, SubagentGet, SubagentSend, SubagentClose] as const
