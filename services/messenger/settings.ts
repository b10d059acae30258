/**
 * Messenger settings (issue 26 §3; layers/settings.ts; docs/messenger.md
 * "Settings"): the bot token that switches the integration on, the webhook
 * secret every update must carry, and the Bot API base URL replies go to.
 *
 * @module
 */
import { Option, Redacted, Result } from "effect"
import { Setting } from "../../layers/settings.ts"

/** A secret that is either unset or not blank (blank is a mistake to name, not "unset"). */
const nonBlank = (name: string) => (raw: Option.Option<Redacted.Redacted<string>>): Result.Result<Redacted.Redacted<string> | undefined, string> => {
  const value = Option.getOrUndefined(raw)
  if (value === undefined) return Result.succeed(undefined)
  const trimmed = Redacted.value(value).trim()
  return trimmed.length === 0 ? Result.fail(`${name} is set but empty`) : Result.succeed(Redacted.make(trimmed))
}

/** `MESSENGER_BOT_TOKEN`, `MESSENGER_WEBHOOK_SECRET`, `MESSENGER_API_URL`. */
export const MessengerSettings = Setting.group("messenger", {
  messengerBotToken: Setting.secret({
    env: "MESSENGER_BOT_TOKEN",
    flag: "messenger-bot-token",
    unset: "unset: the messenger integration is off (POST /ingress/messenger answers the normalised update)",
    summary: "The messenger bot's token; set, it switches the messenger integration on (MESSENGER_BOT_TOKEN)",
    doc: "The bot token of the messenger's Bot API (`<bot id>:<secret>`; never logged). Set, `POST /ingress/messenger` " +
      "requires `MESSENGER_WEBHOOK_SECRET` in the `x-messenger-bot-api-secret-token` header, queues updates as agent " +
      "turns (with `SVC_AGENT_ENABLED=1`) and delivers the replies. The part before `:` is the delivery account.",
    resolve: nonBlank("MESSENGER_BOT_TOKEN / --messenger-bot-token")
  }),
  messengerWebhookSecret: Setting.secret({
    env: "MESSENGER_WEBHOOK_SECRET",
    flag: "messenger-webhook-secret",
    unset: "unset: with MESSENGER_BOT_TOKEN set, the ingress answers 503 misconfigured",
    summary: "The secret every messenger update carries in x-messenger-bot-api-secret-token (MESSENGER_WEBHOOK_SECRET)",
    doc: "The secret the messenger sends in `x-messenger-bot-api-secret-token` with each update (compared in constant " +
      "time; never logged). It also keys the signatures of the approve/deny buttons sent to chats.",
    resolve: nonBlank("MESSENGER_WEBHOOK_SECRET / --messenger-webhook-secret")
  }),
  messengerApiUrl: Setting.text({
    env: "MESSENGER_API_URL",
    flag: "messenger-api-url",
    default: "https://api.telegram.org",
    summary: "Base URL of the messenger Bot API; replies go to <url>/bot<token>/sendMessage (MESSENGER_API_URL)",
    doc: "Any server speaking the Bot API shape works (`sendMessage`, `editMessageText`, `answerCallbackQuery`).",
    resolve: (raw) => {
      const text = raw.trim().replace(/\/+$/, "")
      return /^https?:\/\/\S+$/i.test(text) && URL.canParse(text)
        ? Result.succeed(text)
        : Result.fail(`MESSENGER_API_URL / --messenger-api-url must be an http(s) URL, got "${raw}"`)
    }
  })
})

declare module "../../layers/settings.ts" {
  /** Enters the messenger settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly messenger: typeof MessengerSettings.settings
  }
}
