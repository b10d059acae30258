/**
 * The outbound messenger client (issue 26 §3; docs/messenger.md
 * "Delivery"): the Bot API calls the gateway makes, `POST
 * <MESSENGER_API_URL>/bot<token>/<method>` with a JSON body, answered
 * `{ok: true, result}` or `{ok: false, description}`.
 *
 * A call is retried with exponential backoff ({@link RETRY_SCHEDULE}: 200 ms
 * doubling, at most {@link MAX_ATTEMPTS} calls) when the transport fails,
 * the answer is 429 or 5xx, or it does not arrive within {@link CALL_TIMEOUT};
 * any other refusal is final. A failure names the method and the status or
 * the messenger's `description`, never the URL (it holds the token) and never
 * the token; the HTTP client's own span (whose attributes would hold the URL)
 * is switched off for these calls, the method's span stays.
 *
 * @module
 */
import { Context, Duration, Effect, Layer, Redacted, Ref, Schedule, Schema } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { GatewayConfig } from "../../layers/config.ts"
import { splitText } from "./splitText.ts"

/** Bot API calls one delivery may make. */
export const MAX_ATTEMPTS = 4

/** How long one Bot API call may take. */
export const CALL_TIMEOUT = Duration.seconds(15)

/** 200 ms, 400 ms, 800 ms between the attempts of one call. */
export const RETRY_SCHEDULE = Schedule.exponential(Duration.millis(200), 2)

/** A Bot API call that failed (after its retries, when they apply): the method, how many calls, why. */
export class MessengerCallFailed extends Schema.TaggedError<MessengerCallFailed>()("MessengerCallFailed", {
  method: Schema.String,
  attempts: Schema.Int,
  message: Schema.String,
  retryable: Schema.Boolean
}) {}

/** An inline keyboard button (Bot API `InlineKeyboardButton` with callback data). */
export interface InlineButton {
  readonly text: string
  readonly callback_data: string
}

/** A successful call: the platform's message id (when the method answers a message) and the calls made. */
export interface CallResult {
  readonly message_id?: string
  readonly attempts: number
}

/** The messenger's Bot API, as the gateway uses it. */
export class MessengerClient extends Context.Service<MessengerClient, {
  /**
   * `sendMessage {chat_id, text, reply_markup?}` (buttons: rows of inline buttons). A text over 4096 characters is
   * sent as several messages (splitText.ts), the buttons with the last; the result is the last message's id.
   */
  readonly sendMessage: (
    chatId: string,
    text: string,
    buttons?: ReadonlyArray<ReadonlyArray<InlineButton>>
  ) => Effect.Effect<CallResult, MessengerCallFailed>
  /** `editMessageText {chat_id, message_id, text}` (the buttons go). */
  readonly editMessageText: (chatId: string, messageId: string, text: string) => Effect.Effect<CallResult, MessengerCallFailed>
  /** `answerCallbackQuery {callback_query_id, text}`: the note the presser sees. */
  readonly answerCallbackQuery: (callbackQueryId: string, text: string) => Effect.Effect<CallResult, MessengerCallFailed>
}>()("svc-gateway/messenger/MessengerClient") {
  /**
   * Posts to `MESSENGER_API_URL` with `MESSENGER_BOT_TOKEN` through an `HttpClient`; needs `GatewayConfig` and
   * `HttpClient`. Without a token every call fails (not retried).
   */
  static readonly layerNoDeps = Layer.effect(
    MessengerClient,
    Effect.gen(function*() {
      const settings = yield* GatewayConfig
      const http = yield* HttpClient.HttpClient
      const token = settings.messengerBotToken

      const call = (method: string, body: Record<string, unknown>) =>
        Effect.gen(function*() {
          if (token === undefined) {
            return yield* new MessengerCallFailed({ method, attempts: 0, message: `${method}: MESSENGER_BOT_TOKEN is not set`, retryable: false })
          }
          const attempts = yield* Ref.make(0)
          const once = Effect.gen(function*() {
            const n = yield* Ref.updateAndGet(attempts, (k) => k + 1)
            const failed = (message: string, retryable: boolean) => new MessengerCallFailed({ method, attempts: n, message: `${method}: ${message}`, retryable })
            const url = `${settings.messengerApiUrl}/bot${Redacted.value(token)}/${method}`
            const { response, text } = yield* http.execute(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyJsonUnsafe(body))).pipe(
              // No client span: its attributes would carry the URL, and the URL carries the token.
              Effect.provideService(HttpClient.TracerDisabledWhen, () => true),
              // The body is read within the deadline too: an answer whose body never ends must not hang the delivery.
              Effect.flatMap((response) => Effect.map(Effect.orElseSucceed(response.text, () => ""), (text) => ({ response, text }))),
              Effect.timeoutOrElse({ duration: CALL_TIMEOUT, orElse: () => Effect.fail(failed("no answer in time", true)) }),
              Effect.catchTag("HttpClientError", () => Effect.fail(failed("the messenger API could not be reached", true)))
            )
            let json: { ok?: unknown; result?: { message_id?: unknown }; description?: unknown } | undefined
            try {
              json = JSON.parse(text)
            } catch {
              json = undefined
            }
            if (response.status >= 200 && response.status < 300 && json?.ok === true) {
              const id = json.result?.message_id
              return { ...(id !== undefined && id !== null ? { message_id: String(id) } : {}), attempts: n }
            }
            const description = typeof json?.description === "string" ? ` (${json.description.slice(0, 200)})` : ""
            return yield* failed(`HTTP ${response.status}${description}`, response.status === 429 || response.status >= 500)
          })
          return yield* once.pipe(
            Effect.retry({ schedule: RETRY_SCHEDULE, times: MAX_ATTEMPTS - 1, while: (error) => error.retryable })
          )
        })

      return MessengerClient.of({
        // A text over the Bot API's limit goes as several messages, in order; the buttons go with the last, whose id
        // is answered; `attempts` counts every call. A part that fails ends the delivery (the parts before it were sent).
        sendMessage: Effect.fn("MessengerClient.sendMessage")(function*(chatId, text, buttons) {
          const parts = splitText(text)
          let attempts = 0
          let last: CallResult = { attempts: 0 }
          for (let i = 0; i < parts.length; i++) {
            const lastPart = i === parts.length - 1
            last = yield* call("sendMessage", {
              chat_id: chatId,
              text: parts[i],
              ...(lastPart && buttons !== undefined ? { reply_markup: { inline_keyboard: buttons } } : {})
            }).pipe(Effect.mapError((error) =>
              new MessengerCallFailed({
                method: error.method,
                attempts: attempts + error.attempts,
                message: parts.length === 1 ? error.message : `${error.message} (part ${i + 1} of ${parts.length})`,
                retryable: error.retryable
              })
            ))
            attempts += last.attempts
          }
          return { ...last, attempts }
        }),
        editMessageText: Effect.fn("MessengerClient.editMessageText")((chatId, messageId, text) =>
          call("editMessageText", { chat_id: chatId, message_id: Number(messageId), text })
        ),
        answerCallbackQuery: Effect.fn("MessengerClient.answerCallbackQuery")((callbackQueryId, text) =>
          call("answerCallbackQuery", { callback_query_id: callbackQueryId, text })
        )
      })
    })
  )

  /** Wired with a fetch `HttpClient`; needs `GatewayConfig`. */
  static readonly layer = MessengerClient.layerNoDeps.pipe(Layer.provide(FetchHttpClient.layer))
}
