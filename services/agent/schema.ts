/**
 * The agent runtime's wire shapes (gateway-api.md "Agent runtime", WebSocket
 * `session.send`; reference §7.9; issue 25 §2–4; docs/agent.md).
 *
 * @module
 */
import { Schema } from "effect"
import { AgentId } from "../shared/agent.ts"
import { nonEmptyText } from "../shared/schemas.ts"
import { ContainerKind, MessageEnvelope } from "./envelope.ts"

/** A channel name (`operator`, `messenger`, …): 1–64 characters. */
const Channel = nonEmptyText(64)
/** A thread id within a channel: 1–256 characters. */
const ThreadId = nonEmptyText(256)
/** A user message: 1–32,000 characters. */
const MessageText = nonEmptyText(32_000)

/**
 * `AgentTurnRequest` (reference §7.9): without an `envelope`, `channel`, `thread_id` and `message` are required;
 * with one, those given must equal the envelope's (`delivery.channel`, `container.id`, `content.text`).
 */
export const AgentTurnRequest = Schema.Struct({
  agent_id: Schema.optionalKey(AgentId),
  workspace_id: Schema.optionalKey(nonEmptyText(128)),
  channel: Schema.optionalKey(Channel),
  thread_id: Schema.optionalKey(ThreadId),
  container_kind: Schema.optionalKey(ContainerKind),
  message: Schema.optionalKey(MessageText),
  envelope: Schema.optionalKey(MessageEnvelope),
  intake_mode: Schema.optionalKey(Schema.Literals(["inline", "delegate_execute", "delegate_plan"])),
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "AgentTurnRequest" })
export type AgentTurnRequest = typeof AgentTurnRequest.Type

/** `{reply, session_id, used_tools, memory_written}`. */
export const AgentTurnResult = Schema.Struct({
  reply: Schema.String,
  session_id: Schema.String,
  used_tools: Schema.Array(Schema.String),
  memory_written: Schema.Boolean
}).annotate({ identifier: "AgentTurnResult" })
export type AgentTurnResult = typeof AgentTurnResult.Type

/** The health of a tool source (a plugin, an MCP server) as `GET /agent/status` shows it. */
export const ToolSourceHealth = Schema.Struct({
  source: Schema.String.annotate({ description: "`<kind>:<id>`, e.g. `mcp:files`, `plugin:echo`" }),
  status: Schema.Literals(["ready", "starting", "failed"]),
  tools: Schema.Int.annotate({ description: "How many tools it offers now (0 unless ready)" }),
  last_error: Schema.optionalKey(Schema.String),
  retry_at: Schema.optionalKey(Schema.String).annotate({ description: "ISO time of the next attempt, while failed" }),
  ready_at: Schema.optionalKey(Schema.String).annotate({ description: "ISO time it last became ready" })
}).annotate({ identifier: "ToolSourceHealth" })

/** `GET /agent/status`: the agent's model, whether its provider can be used (never a credential), tools, sessions. */
export const AgentStatus = Schema.Struct({
  status: Schema.Literal("ok"),
  agent_id: Schema.String,
  enabled: Schema.Boolean,
  model: Schema.String,
  provider: Schema.Struct({
    id: Schema.String,
    ready: Schema.Boolean,
    reason: Schema.optionalKey(Schema.String).annotate({ description: "Why the provider is not ready (what is missing; never a value)." })
  }),
  tools: Schema.Array(Schema.String),
  tool_sources: Schema.Array(ToolSourceHealth).annotate({
    description: "Each contributing source (`plugin:<id>`, `mcp:<server>`) and its health: a failed source's tools are withdrawn until it is back."
  }),
  session_count: Schema.Int,
  last_turn_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "AgentStatus" })
export type AgentStatus = typeof AgentStatus.Type

/** `GET /agent/status` and `GET /context` query: `agent_id` (default `default`). */
export const AgentQuery = { agent_id: Schema.optionalKey(AgentId) }

/** A tool call a turn made: the tool, the policy's answer and the outcome. */
export const ContextToolCall = Schema.Struct({
  tool: Schema.String,
  tool_id: Schema.String,
  decision: Schema.String,
  outcome: Schema.String
})

/**
 * A turn's context report (reference §7.9): what went into the model call. Unknown fields are kept (the
 * reference's schema is passthrough).
 */
export const ContextReport = Schema.StructWithRest(
  Schema.Struct({
    context_report_id: Schema.String,
    generated_at: Schema.String,
    session_id: Schema.String,
    channel: Schema.String,
    thread_id: Schema.String,
    agent_id: Schema.String,
    workspace_id: Schema.String,
    model: Schema.String,
    system_prompt: Schema.Struct({ chars: Schema.Int, sections: Schema.Array(Schema.Struct({ id: Schema.String, chars: Schema.Int })) }),
    user_parts: Schema.Array(Schema.Struct({ id: Schema.String, chars: Schema.Int })),
    selected_tools: Schema.Array(Schema.String),
    tool_schema_top: Schema.Array(Schema.Struct({ id: Schema.String, chars: Schema.Int })),
    tool_schema_total_chars: Schema.Int,
    enabled_skills: Schema.Array(Schema.String),
    mcp_servers: Schema.Array(Schema.String),
    memory: Schema.Struct({ keyword_hits: Schema.Int, semantic_hits: Schema.Int }),
    tool_calls: Schema.Array(ContextToolCall),
    injected_files: Schema.Array(Schema.String),
    history: Schema.Struct({ messages: Schema.Int, dropped: Schema.Int }),
    usage: Schema.Struct({
      input_tokens: Schema.Int,
      output_tokens: Schema.Int,
      total_tokens: Schema.Int,
      usd_micros: Schema.Int.annotate({ description: "The turn's cost in millionths of a US dollar (model catalog prices; 0 when unknown)." })
    })
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ identifier: "ContextReport" })
export type ContextReport = typeof ContextReport.Type

/** `GET /context` and `GET /context/detail/:id`. */
export const ContextReportResponse = Schema.Struct({ status: Schema.Literal("ok"), report: ContextReport })
  .annotate({ identifier: "ContextReportResponse" })

/** `GET /context/list` query: `session_id`, `run_id`, `limit` (1..200, default 50). */
export const ContextListQuery = {
  session_id: Schema.optionalKey(nonEmptyText(128)),
  run_id: Schema.optionalKey(nonEmptyText(128)),
  limit: Schema.optionalKey(Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 200 })))
}

/** `GET /context/list`: newest first. */
export const ContextListResponse = Schema.Struct({ status: Schema.Literal("ok"), reports: Schema.Array(ContextReport) })
  .annotate({ identifier: "ContextListResponse" })

/** `session.send {agent_id?, channel, thread_id, content}`. */
export const SessionSendRequest = Schema.Struct({
  agent_id: Schema.optionalKey(AgentId),
  channel: Channel,
  thread_id: ThreadId,
  content: MessageText
}).annotate({ identifier: "WsSessionSendRequest" })
export type SessionSendRequest = typeof SessionSendRequest.Type

/** `{session_id, assistant_message}`. */
export const SessionSendResult = Schema.Struct({
  session_id: Schema.String,
  assistant_message: Schema.String
}).annotate({ identifier: "WsSessionSendResult" })
export type SessionSendResult = typeof SessionSendResult.Type

/**
 * A session's queue mode (`/queue`; reference §5.3): what a message arriving while a turn runs does. `collect`
 * gathers them into one turn, `followup` runs each after the running one, `steer` feeds it into the running turn,
 * `steer_backlog` steers and keeps it for a follow-up, `interrupt` stops the running turn first. Stored per
 * session; the runtime runs waiting turns one after another (`followup`) whatever the mode today.
 */
export const QueueMode = Schema.Literals(["collect", "followup", "steer", "steer_backlog", "interrupt"])
  .annotate({ identifier: "AgentQueueMode" })
export type QueueMode = typeof QueueMode.Type

/** A session's outbound send policy (`/send`): `on`, `off`, or `inherit` (the channel's; the default). */
export const SendPolicy = Schema.Literals(["on", "off", "inherit"]).annotate({ identifier: "AgentSendPolicy" })
export type SendPolicy = typeof SendPolicy.Type

/**
 * `command.execute {command, agent_id?, channel?, thread_id?, key?, lane?}` (reference §5.3): `command` is the
 * whole text (`/model openai/gpt-4.1-mini`). Commands that act on a session use the session of (`agent_id` default
 * `default`, `channel` default `operator`, `thread_id` default `console`). `key` and `lane` are accepted for the
 * reference's payload and not used (sessions are named by agent, channel and thread).
 */
export const CommandExecuteRequest = Schema.Struct({
  command: nonEmptyText(4_000),
  agent_id: Schema.optionalKey(AgentId),
  channel: Schema.optionalKey(Channel),
  thread_id: Schema.optionalKey(ThreadId),
  key: Schema.optionalKey(nonEmptyText(512)),
  lane: Schema.optionalKey(nonEmptyText(64))
}).annotate({ identifier: "WsCommandExecuteRequest" })
export type CommandExecuteRequest = typeof CommandExecuteRequest.Type

/** `{output, data?}`: `output` the text to show; `data` the structured result (each command's shape: docs/agent.md). */
export const CommandExecuteResult = Schema.Struct({
  output: Schema.String,
  data: Schema.optionalKey(Schema.Unknown)
}).annotate({ identifier: "WsCommandExecuteResult" })
export type CommandExecuteResult = typeof CommandExecuteResult.Type
