/**
 * Events of the agent runtime (issue 25 §2 "Streaming", §4; reference §5.3
 * event list), to operator clients holding `operator.read`: a turn opens
 * with `typing.started`, streams its text as `message.delta`, ends with
 * `message.final` and `typing.stopped`, and stores a report announced as
 * `context_report.created`. Every payload names the session.
 *
 * @module
 */
import { Schema } from "effect"
import { make, OPERATORS_READ } from "../ws-sessions/GatewayEvent.ts"

const Session = { session_id: Schema.String, agent_id: Schema.String, channel: Schema.String, thread_id: Schema.String }

/** `typing.started {session_id, agent_id, channel, thread_id}`: a turn began. */
export const TypingStarted = make("typing.started", { payload: Schema.Struct(Session), audience: OPERATORS_READ })

/** `message.delta {…session, delta}`: the next chunk of the reply's text. */
export const MessageDelta = make("message.delta", {
  payload: Schema.Struct({ ...Session, delta: Schema.String }),
  audience: OPERATORS_READ
})

/** `message.final {…session, content, used_tools}`: the whole reply. */
export const MessageFinal = make("message.final", {
  payload: Schema.Struct({ ...Session, content: Schema.String, used_tools: Schema.Array(Schema.String) }),
  audience: OPERATORS_READ
})

/** `typing.stopped {…session}`: the turn ended (answered or failed). */
export const TypingStopped = make("typing.stopped", { payload: Schema.Struct(Session), audience: OPERATORS_READ })

/** `context_report.created {context_report_id, session_id, agent_id}`. */
export const ContextReportCreated = make("context_report.created", {
  payload: Schema.Struct({ context_report_id: Schema.String, session_id: Schema.String, agent_id: Schema.String }),
  audience: OPERATORS_READ
})

/** Every event type of this subsystem. */
export const AgentEvents = [TypingStarted, MessageDelta, MessageFinal, TypingStopped, ContextReportCreated] as const
