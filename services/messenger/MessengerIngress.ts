/**
 * The messenger ingress (issue 26 §3; gateway-api.md "Ingress (messenger
 * webhook)"; reference §7.10; docs/messenger.md): `POST /ingress/messenger`
 * and the inbox read `GET /ingress/messenger/inbox`.
 *
 * `receive` checks, in order:
 * 1. with `MESSENGER_BOT_TOKEN` set (the integration on): `MESSENGER_WEBHOOK_SECRET`
 *    set, else 503 `misconfigured`; the header `x-messenger-bot-api-secret-token`
 *    equal to it (constant time), else 401 "invalid messenger webhook secret";
 * 2. the body: empty → 400 `invalid_request`, not JSON → 400 `invalid_request`;
 * 3. a `callback_query` (an approval button press, integration on) → `ChatApprovals.press`;
 * 4. normalisation (normalize.ts) → 400 `normalization_error` naming why;
 * 5. the agent runtime off (`SVC_AGENT_ENABLED` unset) or no bot token → 200
 *    `{thread, message}`; else the update is routed (the `agent_id` query, else
 *    the routing configuration's `messenger.threads[<chat id>]`, its
 *    `default_agent_id`, else `default`) and queued in the inbox, deduplicated
 *    by `(account, chat, message_id)`, answered 200 `{ok: true, queued, inbox_id,
 *    deduped, status}` at once; a storage failure → 503 `temporary_failure`.
 *
 * The account is the bot id (the token's part before `:`), else `default`.
 *
 * @module
 */
import { Cause, Clock, Context, Effect, Layer, Redacted, Result } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { secretEquals } from "../auth/tokenCrypto.ts"
import { RoutingConfigService } from "../routing/RoutingConfigService.ts"
import { parseJsonBody } from "../shared/decode.ts"
import { isoTime } from "../shared/time.ts"
import { ChatApprovals } from "./ChatApprovals.ts"
import { toReceipt } from "./Deliveries.ts"
import { InvalidRequest, InvalidWebhookSecret, MessengerMisconfigured, NormalizationError, TemporaryFailure } from "./errors.ts"
import { InboxRepo, type InboxRow } from "./InboxRepo.ts"
import { InboxWorker, laneOf } from "./InboxWorker.ts"
import { accountOf, callbackOf, normalizeUpdate, turnText } from "./normalize.ts"
import type { InboxItem, InboxResponse, InboxStatus, IngressResponse } from "./schema.ts"

/** The header carrying the webhook secret. */
export const SECRET_HEADER = "x-messenger-bot-api-secret-token"

/** What `POST /ingress/messenger` hands over: the headers, the raw body text and the `agent_id` query. */
export interface IngressInput {
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
  readonly agentId?: string | undefined
}

/** An inbox row (with its receipts) as the wire's item (null columns left out). */
const toItem = (row: InboxRow, receipts: InboxItem["receipts"]): InboxItem => ({
  inbox_id: row.inbox_id,
  account: row.account,
  chat_id: row.chat_id,
  message_id: row.message_id,
  agent_id: row.agent_id,
  status: row.status,
  text: row.text,
  duplicates: row.duplicates,
  attempts: row.attempts,
  received_at: row.received_at,
  queued_at: row.queued_at,
  ...(row.started_at !== null ? { started_at: row.started_at } : {}),
  ...(row.finished_at !== null ? { finished_at: row.finished_at } : {}),
  ...(row.reply !== null ? { reply: row.reply } : {}),
  ...(row.error !== null ? { error: row.error } : {}),
  receipts
})

/** The messenger ingress. */
export class MessengerIngress extends Context.Service<MessengerIngress, {
  /** `POST /ingress/messenger` (see the module doc for the order of the checks). */
  readonly receive: (input: IngressInput) => Effect.Effect<
    IngressResponse,
    MessengerMisconfigured | InvalidWebhookSecret | InvalidRequest | NormalizationError | TemporaryFailure
  >
  /** `GET /ingress/messenger/inbox`: the newest items (of `status`), with receipts and counts. */
  readonly inbox: (query: { readonly status?: InboxStatus | undefined; readonly limit?: number | undefined }) => Effect.Effect<InboxResponse>
}>()("svc-gateway/messenger/MessengerIngress") {
  /** Needs {@link InboxRepo}, {@link InboxWorker}, {@link ChatApprovals}, `RoutingConfigService` and `GatewayConfig`. */
  static readonly layerNoDeps = Layer.effect(
    MessengerIngress,
    Effect.gen(function*() {
      const repo = yield* InboxRepo
      const worker = yield* InboxWorker
      const chatApprovals = yield* ChatApprovals
      const routing = yield* RoutingConfigService
      const settings = yield* GatewayConfig
      const token = settings.messengerBotToken
      const secret = settings.messengerWebhookSecret
      const account = accountOf(token === undefined ? undefined : Redacted.value(token))

      const checkSecret = (headers: IngressInput["headers"]) => {
        if (token === undefined) return Effect.void
        if (secret === undefined) {
          return Effect.fail(new MessengerMisconfigured({ message: "MESSENGER_WEBHOOK_SECRET must be set when MESSENGER_BOT_TOKEN is" }))
        }
        const given = headers[SECRET_HEADER]
        return given !== undefined && secretEquals(given, Redacted.value(secret))
          ? Effect.void
          : Effect.fail(new InvalidWebhookSecret({ message: "invalid messenger webhook secret" }))
      }

      const queue = Effect.fnUntraced(function*(normalized: Extract<IngressResponse, { readonly thread: unknown }>, agentIdQuery: string | undefined) {
        const chatId = normalized.thread.id
        const agentId = agentIdQuery ?? (yield* Effect.orDie(routing.agentFor(chatId)))
        const at = isoTime(yield* Clock.currentTimeMillis)
        const enqueued = yield* worker.enqueue({
          account,
          chat_id: chatId,
          message_id: normalized.message.message_id,
          agent_id: agentId,
          session_key: laneOf(agentId, chatId),
          text: turnText(normalized.message),
          envelope: normalized.message,
          received_at: normalized.message.received_at,
          queued_at: at
        })
        return { ok: true as const, queued: !enqueued.deduped, inbox_id: enqueued.inbox_id, deduped: enqueued.deduped, status: enqueued.status }
      })

      const receive = Effect.fn("MessengerIngress.receive")(function*(input: IngressInput) {
        yield* checkSecret(input.headers)
        if (input.body.trim() === "") return yield* new InvalidRequest({ message: "request body is empty" })
        const parsed = parseJsonBody(input.body)
        if (Result.isFailure(parsed)) return yield* new InvalidRequest({ message: parsed.failure })
        const callback = token === undefined ? undefined : callbackOf(parsed.success)
        if (callback !== undefined) {
          if (Result.isFailure(callback)) return yield* new NormalizationError({ message: callback.failure })
          return yield* chatApprovals.press(callback.success)
        }
        const normalized = normalizeUpdate(parsed.success, account)
        if (Result.isFailure(normalized)) return yield* new NormalizationError({ message: normalized.failure })
        if (!settings.agentEnabled || token === undefined) return normalized.success
        return yield* queue(normalized.success, input.agentId).pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.failCause(cause)
              : Effect.andThen(
                Effect.logWarning("messenger update could not be queued").pipe(Effect.annotateLogs({ cause: Cause.pretty(cause) })),
                Effect.fail(new TemporaryFailure({ message: "the update could not be queued; retry later" }))
              ))
        )
      })

      const inbox = Effect.fn("MessengerIngress.inbox")(function*(query: { readonly status?: InboxStatus | undefined; readonly limit?: number | undefined }) {
        const rows = yield* repo.list({ status: query.status, limit: query.limit ?? 50 })
        const receipts = yield* repo.deliveriesOf(rows.map((row) => row.inbox_id))
        const counts = yield* repo.counts
        return {
          status: "ok" as const,
          counts,
          items: rows.map((row) => toItem(row, receipts.filter((r) => r.inbox_id === row.inbox_id).map(toReceipt)))
        }
      })

      return MessengerIngress.of({ receive, inbox })
    })
  )
}
