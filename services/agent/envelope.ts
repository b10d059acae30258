/**
 * The normalised inbound message envelope (reference §7.9–§7.10; issue 26 §3
 * produces it from messenger updates): what an `AgentTurnRequest` may carry
 * instead of `channel`, `thread_id` and `message`.
 *
 * @module
 */
import { Schema } from "effect"
import { nonEmptyText } from "../shared/schemas.ts"

/** Where a message was delivered from: `dm`, `group` or `channel`. */
export const ContainerKind = Schema.Literals(["dm", "group", "channel"])
export type ContainerKind = typeof ContainerKind.Type

/**
 * `{message_id, received_at, delivery{channel, account}, container{kind, id}, sender{id, display?},
 * content{text?, attachments[{kind}]}, provenance[]}`.
 */
export const MessageEnvelope = Schema.Struct({
  message_id: nonEmptyText(256),
  received_at: Schema.String,
  delivery: Schema.Struct({ channel: nonEmptyText(64), account: Schema.optionalKey(Schema.String) }),
  container: Schema.Struct({ kind: ContainerKind, id: nonEmptyText(256) }),
  sender: Schema.Struct({ id: nonEmptyText(256), display: Schema.optionalKey(Schema.String) }),
  content: Schema.Struct({
    text: Schema.optionalKey(Schema.String),
    attachments: Schema.optionalKey(Schema.Array(Schema.Struct({ kind: Schema.String })))
  }),
  provenance: Schema.optionalKey(Schema.Array(Schema.String))
}).annotate({ identifier: "MessageEnvelope" })
export type MessageEnvelope = typeof MessageEnvelope.Type
