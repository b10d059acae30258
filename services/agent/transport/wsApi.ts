/**
 * The agent runtime over WebSocket (gateway-api.md message table
 * `session.send`; reference §5.3; docs/agent.md): operator clients with
 * operator.write. Answered `unsupported_request` unless
 * `SVC_AGENT_ENABLED=1`.
 *
 * @module
 */
import { CLIENT, make } from "../../../src/ws/api/message.ts"
import { SessionSendRequest, SessionSendResult } from "../schema.ts"

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
