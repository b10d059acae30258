/**
 * Delivery receipts (docs/messenger.md "Delivery"): every message the
 * gateway sends to a chat (or holds back) is recorded in
 * `messenger_deliveries` and announced as `delivery.receipt`.
 *
 * @module
 */
import { Clock, Context, Effect, Layer } from "effect"
import { isoTime } from "../shared/time.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { DeliveryReceiptEvent } from "./events.ts"
import { type DeliveryRow, InboxRepo } from "./InboxRepo.ts"
import type { CallResult, MessengerCallFailed } from "./MessengerClient.ts"
import type { DeliveryKind, DeliveryReceipt } from "./schema.ts"

/** Where a delivery goes and what it is. */
export interface DeliveryTarget {
  readonly account: string
  readonly chatId: string
  readonly kind: DeliveryKind
  readonly inboxId?: number | undefined
  readonly approvalId?: number | undefined
}

/** A stored receipt as the wire's (null columns left out). */
export const toReceipt = (row: DeliveryRow): DeliveryReceipt => ({
  delivery_id: row.delivery_id,
  channel: "messenger",
  account: row.account,
  chat_id: row.chat_id,
  kind: row.kind,
  status: row.status,
  attempts: row.attempts,
  ...(row.inbox_id !== null ? { inbox_id: row.inbox_id } : {}),
  ...(row.approval_id !== null ? { approval_id: row.approval_id } : {}),
  ...(row.platform_message_id !== null ? { platform_message_id: row.platform_message_id } : {}),
  ...(row.error !== null ? { error: row.error } : {}),
  created_at: row.created_at
})

/** Records and announces deliveries. */
export class Deliveries extends Context.Service<Deliveries, {
  /** Runs `send` (a `MessengerClient` call) and records its outcome: `sent` or `failed` (never fails itself). */
  readonly deliver: (target: DeliveryTarget, send: Effect.Effect<CallResult, MessengerCallFailed>) => Effect.Effect<DeliveryReceipt>
  /** Records a delivery the session's send policy held back (`suppressed`). */
  readonly suppress: (target: DeliveryTarget) => Effect.Effect<DeliveryReceipt>
}>()("svc-gateway/messenger/Deliveries") {
  /** Needs {@link InboxRepo} and `EventBus`. */
  static readonly layerNoDeps = Layer.effect(
    Deliveries,
    Effect.gen(function*() {
      const repo = yield* InboxRepo
      const events = yield* EventBus

      const record = Effect.fnUntraced(function*(
        target: DeliveryTarget,
        outcome: { readonly status: DeliveryReceipt["status"]; readonly attempts: number; readonly messageId?: string | undefined; readonly error?: string | undefined }
      ) {
        const row = yield* repo.insertDelivery({
          account: target.account,
          chat_id: target.chatId,
          kind: target.kind,
          status: outcome.status,
          attempts: outcome.attempts,
          inbox_id: target.inboxId ?? null,
          approval_id: target.approvalId ?? null,
          platform_message_id: outcome.messageId ?? null,
          error: outcome.error ?? null,
          created_at: isoTime(yield* Clock.currentTimeMillis)
        })
        const receipt = toReceipt(row)
        yield* events.publish(DeliveryReceiptEvent, receipt)
        return receipt
      })

      const deliver = Effect.fn("Deliveries.deliver")(function*(target: DeliveryTarget, send: Effect.Effect<CallResult, MessengerCallFailed>) {
        const result = yield* Effect.result(send)
        if (result._tag === "Success") {
          return yield* record(target, { status: "sent", attempts: result.success.attempts, messageId: result.success.message_id })
        }
        yield* Effect.logWarning("messenger delivery failed").pipe(
          Effect.annotateLogs({ kind: target.kind, chat_id: target.chatId, reason: result.failure.message })
        )
        return yield* record(target, { status: "failed", attempts: result.failure.attempts, error: result.failure.message })
      })

      const suppress = Effect.fn("Deliveries.suppress")((target: DeliveryTarget) => record(target, { status: "suppressed", attempts: 0 }))

      return Deliveries.of({ deliver, suppress })
    })
  )

  /** Wired with the repository and the event bus; needs a `SqlClient` and `GatewayConfig`. */
  static readonly layer = Deliveries.layerNoDeps.pipe(Layer.provide(InboxRepo.layer), Layer.provide(EventBus.layer))
}
