/**
 * Wire shapes of the messenger ingress (gateway-api.md "Ingress (messenger
 * webhook)"; reference §7.10; docs/messenger.md): the normalised update, the
 * queued answer, the answer to a button press, the inbox and its delivery
 * receipts.
 *
 * @module
 */
import { Schema } from "effect"
import { AgentId } from "../shared/agent.ts"
import { MessageEnvelope } from "../agent/envelope.ts"

/** The chat an update came from: `{id, kind, title?, username?, pii_fields}`. */
export const NormalizedThread = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literals(["private", "group", "supergroup", "channel", "other"]),
  title: Schema.optionalKey(Schema.String),
  username: Schema.optionalKey(Schema.String),
  pii_fields: Schema.Array(Schema.String).annotate({ description: "The sender and message fields that were present (`sender.username`, `message.text`, …)." })
}).annotate({ identifier: "MessengerThread" })
export type NormalizedThread = typeof NormalizedThread.Type

/** `{thread, message}`: the answer with the agent runtime off. */
export const NormalizedUpdate = Schema.Struct({ thread: NormalizedThread, message: MessageEnvelope })
  .annotate({ identifier: "MessengerNormalizedUpdate" })
export type NormalizedUpdate = typeof NormalizedUpdate.Type

/** Where an inbox item is: `queued` → `running` → `processed` | `interrupted` (a newer message stopped it) | `failed`. */
export const InboxStatus = Schema.Literals(["queued", "running", "processed", "interrupted", "failed"])
export type InboxStatus = typeof InboxStatus.Type

/** `{ok: true, queued, inbox_id, deduped, status}`: the update is in the inbox (`deduped`: it already was). */
export const IngressQueued = Schema.Struct({
  ok: Schema.Literal(true),
  queued: Schema.Boolean.annotate({ description: "True when this call added the update to the inbox." }),
  inbox_id: Schema.Int,
  deduped: Schema.Boolean.annotate({ description: "True when the update (account, chat, message id) was received before." }),
  status: InboxStatus
}).annotate({ identifier: "MessengerIngressQueued" })
export type IngressQueued = typeof IngressQueued.Type

/** What a button press did. */
export const CallbackOutcome = Schema.Literals(["approved", "denied", "already_resolved", "refused", "invalid"])
export type CallbackOutcome = typeof CallbackOutcome.Type

/** `{ok: true, callback: {outcome, approval_id?}}`: a `callback_query` update (an approve/deny button press). */
export const IngressCallback = Schema.Struct({
  ok: Schema.Literal(true),
  callback: Schema.Struct({ outcome: CallbackOutcome, approval_id: Schema.optionalKey(Schema.Int) })
}).annotate({ identifier: "MessengerIngressCallback" })
export type IngressCallback = typeof IngressCallback.Type

/** The answers of `POST /ingress/messenger`. */
export const IngressResponse = Schema.Union([NormalizedUpdate, IngressQueued, IngressCallback])
export type IngressResponse = typeof IngressResponse.Type

/** `POST /ingress/messenger` query: `agent_id` forces the agent. */
export const IngressQuery = { agent_id: Schema.optionalKey(AgentId) }

/** What a delivery was: a turn's `reply`, an `approval` prompt with buttons, or an approval's `approval_outcome` edit. */
export const DeliveryKind = Schema.Literals(["reply", "approval", "approval_outcome"])
export type DeliveryKind = typeof DeliveryKind.Type

/** `sent`; `failed` after the retries; `suppressed` by the session's send policy `off`. */
export const DeliveryStatus = Schema.Literals(["sent", "failed", "suppressed"])
export type DeliveryStatus = typeof DeliveryStatus.Type

/** A delivery receipt: also the `delivery.receipt` event's payload. */
export const DeliveryReceipt = Schema.Struct({
  delivery_id: Schema.Int,
  channel: Schema.Literal("messenger"),
  account: Schema.String,
  chat_id: Schema.String,
  kind: DeliveryKind,
  status: DeliveryStatus,
  attempts: Schema.Int.annotate({ description: "Bot API calls made (0 when suppressed)." }),
  inbox_id: Schema.optionalKey(Schema.Int),
  approval_id: Schema.optionalKey(Schema.Int),
  platform_message_id: Schema.optionalKey(Schema.String),
  error: Schema.optionalKey(Schema.String),
  created_at: Schema.String
}).annotate({ identifier: "MessengerDeliveryReceipt" })
export type DeliveryReceipt = typeof DeliveryReceipt.Type

/** One inbox item with its delivery receipts. */
export const InboxItem = Schema.Struct({
  inbox_id: Schema.Int,
  account: Schema.String,
  chat_id: Schema.String,
  message_id: Schema.String,
  agent_id: Schema.String,
  status: InboxStatus,
  text: Schema.String,
  duplicates: Schema.Int.annotate({ description: "How many times the same update was received again (deduplicated)." }),
  attempts: Schema.Int,
  received_at: Schema.String,
  queued_at: Schema.String,
  started_at: Schema.optionalKey(Schema.String),
  finished_at: Schema.optionalKey(Schema.String),
  reply: Schema.optionalKey(Schema.String),
  error: Schema.optionalKey(Schema.String),
  receipts: Schema.Array(DeliveryReceipt)
}).annotate({ identifier: "MessengerInboxItem" })
export type InboxItem = typeof InboxItem.Type

/** `GET /ingress/messenger/inbox` query: `status`, `limit` (1..200, default 50). */
export const InboxQuery = {
  status: Schema.optionalKey(InboxStatus),
  limit: Schema.optionalKey(Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 200 })))
}

/** The inbox, newest first, with counts by status and of deduplicated updates. */
export const InboxResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  counts: Schema.Struct({
    queued: Schema.Int,
    running: Schema.Int,
    processed: Schema.Int,
    interrupted: Schema.Int,
    failed: Schema.Int,
    deduplicated: Schema.Int
  }),
  items: Schema.Array(InboxItem)
}).annotate({ identifier: "MessengerInboxResponse" })
export type InboxResponse = typeof InboxResponse.Type
