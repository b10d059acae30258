/**
 * Events of the subagents (issue 25 §3; reference §5.3), to operator clients
 * holding `operator.read`, with envelope scope `{kind: "key", key:
 * <session_key>, lane: "subagent"}` (reference §5.1 `EventScope`):
 *
 * | Type | Payload | When |
 * |---|---|---|
 * | `subagent.spawned` | `{subagent}` | `subagent.spawn` |
 * | `subagent.updated` | `{subagent, error?}` | `subagent.close` moved it to `closing`; a turn failed (`failed`, `error` says why) |
 * | `subagent.output` | `{subagent_id, tenant_id, agent_id, workspace_id, session_key, lane, message_id, kind: "final", content}` | a message's turn answered |
 * | `subagent.closed` | `{subagent}` | `subagent.close` ended it |
 *
 * @module
 */
import { Schema } from "effect"
import { make, OPERATORS_READ } from "../../ws-sessions/GatewayEvent.ts"
import { Subagent, SUBAGENT_LANE, SubagentScopeFields } from "./schema.ts"

/** `subagent.spawned {subagent}`. */
export const SubagentSpawned = make("subagent.spawned", { payload: Schema.Struct({ subagent: Subagent }), audience: OPERATORS_READ })

/** `subagent.updated {subagent, error?}`: a status change other than spawn and the final close. */
export const SubagentUpdated = make("subagent.updated", {
  payload: Schema.Struct({
    subagent: Subagent,
    error: Schema.optionalKey(Schema.String).annotate({ description: "Why the subagent failed (the turn's error message)." })
  }),
  audience: OPERATORS_READ
})

/** `subagent.output {…ids, message_id, kind: "final", content}`: the reply to one `subagent.send`. */
export const SubagentOutput = make("subagent.output", {
  payload: Schema.Struct({
    subagent_id: Schema.String,
    ...SubagentScopeFields,
    session_key: Schema.String,
    lane: Schema.Literal(SUBAGENT_LANE),
    message_id: Schema.Int.annotate({ description: "The queued message this answers (its order among the subagent's messages)." }),
    kind: Schema.Literal("final"),
    content: Schema.String
  }),
  audience: OPERATORS_READ
})

/** `subagent.closed {subagent}`. */
export const SubagentClosed = make("subagent.closed", { payload: Schema.Struct({ subagent: Subagent }), audience: OPERATORS_READ })

/** Every subagent event type. */
export const SubagentEvents = [SubagentSpawned, SubagentUpdated, SubagentOutput, SubagentClosed] as const
