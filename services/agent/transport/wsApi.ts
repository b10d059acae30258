/**
 * The agent runtime over WebSocket (gateway-api.md message table
 * `session.send`, `command.execute`; reference §5.3; docs/agent.md): operator
 * clients, `session.send` with operator.write, `command.execute` with
 * operator.admin. Answered `unsupported_request` unless
 * `SVC_AGENT_ENABLED=1`.
 *
 * @module
 */
import { CLIENT, make } from "../../../src/ws/api/message.ts"
import { CommandExecuteRequest, CommandExecuteResult, SessionSendRequest, SessionSendResult } from "../schema.ts"

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
