/**
 * Messenger update normalisation (issue 26 §3; reference §7.10 with the
 * spec's names; docs/messenger.md "Normalisation"). Pure functions over the
 * parsed update JSON (the Bot API shape): no clock, no storage.
 *
 * - The message is `edited_message ?? message`; anything else (a
 *   `callback_query` aside, see {@link callbackOf}) does not normalise.
 * - Thread `{id: String(chat.id), kind: private|group|supergroup|channel|other,
 *   title?, username?, pii_fields}`; `pii_fields` names the sender and message
 *   fields that were present (`sender.username`, `message.text`, …).
 * - Content: text, or a media placeholder whose kind is the first present of
 *   photo, video, animation, document, audio, voice, video_note, sticker
 *   (else `unknown`); a caption is kept as the text.
 * - Unix seconds → ISO 8601 UTC.
 * - The envelope `{message_id, received_at, delivery{channel: "messenger",
 *   account}, container{kind dm|group|channel, id}, sender{id | "chat:<id>",
 *   display? = username}, content{text?, attachments[{kind}]}, provenance:
 *   ["user"]}`.
 *
 * @module
 */
import { Result } from "effect"
import type { MessageEnvelope } from "../agent/envelope.ts"
import type { NormalizedThread, NormalizedUpdate } from "./schema.ts"

/** The `delivery.channel` of messenger envelopes and the channel of their agent sessions. */
export const MESSENGER_CHANNEL = "messenger"

/** Media kinds in detection order (the first present wins). */
export const MEDIA_KINDS = ["photo", "video", "animation", "document", "audio", "voice", "video_note", "sticker"] as const

const SENDER_PII = ["first_name", "last_name", "username", "language_code", "phone_number"] as const
const MESSAGE_PII = ["text", "caption", "contact", "location", "venue"] as const

type Json = Record<string, unknown>
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const isId = (u: unknown): u is number | string =>
  (typeof u === "number" && Number.isSafeInteger(u)) || (typeof u === "string" && /^-?\d{1,20}$/.test(u))
const text = (u: unknown): string | undefined => (typeof u === "string" && u.length > 0 ? u : undefined)

/** The account an update arrived for: the bot id (the token's part before `:`), else `default`. */
export const accountOf = (botToken: string | undefined): string => {
  const prefix = botToken?.split(":")[0]?.trim()
  return prefix !== undefined && /^[A-Za-z0-9_-]{1,64}$/.test(prefix) && botToken!.includes(":") ? prefix : "default"
}

const threadKind = (type: unknown): NormalizedThread["kind"] =>
  type === "private" || type === "group" || type === "supergroup" || type === "channel" ? type : "other"

const containerKind = (kind: NormalizedThread["kind"]): MessageEnvelope["container"]["kind"] =>
  kind === "private" ? "dm" : kind === "channel" ? "channel" : "group"

/** Normalises a parsed update; the failure is the reason it does not normalise. */
export const normalizeUpdate = (update: unknown, account: string): Result.Result<NormalizedUpdate, string> => {
  if (!isObject(update)) return Result.fail("the update must be a JSON object")
  const message = update.edited_message ?? update.message
  if (!isObject(message)) return Result.fail("the update has no message or edited_message")
  const chat = message.chat
  if (!isObject(chat) || !isId(chat.id)) return Result.fail("message.chat.id is missing or not an integer")
  if (!isId(message.message_id)) return Result.fail("message.message_id is missing or not an integer")
  if (typeof message.date !== "number" || !Number.isFinite(message.date) || message.date < 0 || message.date > 1e11) {
    return Result.fail("message.date is missing or not unix seconds")
  }
  const from = isObject(message.from) ? message.from : undefined
  if (from !== undefined && !isId(from.id)) return Result.fail("message.from.id is not an integer")
  const kind = threadKind(chat.type)
  const chatId = String(chat.id)
  const pii_fields = [
    ...SENDER_PII.filter((field) => from?.[field] !== undefined).map((field) => `sender.${field}`),
    ...MESSAGE_PII.filter((field) => message[field] !== undefined).map((field) => `message.${field}`)
  ]
  const thread: NormalizedThread = {
    id: chatId,
    kind,
    ...(text(chat.title) !== undefined ? { title: text(chat.title)! } : {}),
    ...(text(chat.username) !== undefined ? { username: text(chat.username)! } : {}),
    pii_fields
  }
  const body = text(message.text)
  const mediaKind = body !== undefined ? undefined : (MEDIA_KINDS.find((k) => message[k] !== undefined) ?? "unknown")
  const caption = text(message.caption)
  const contentText = body ?? caption
  const username = text(from?.username)
  const envelope: MessageEnvelope = {
    message_id: String(message.message_id),
    received_at: new Date(Math.round(message.date * 1000)).toISOString(),
    delivery: { channel: MESSENGER_CHANNEL, account },
    container: { kind: containerKind(kind), id: chatId },
    sender: { id: from !== undefined ? String(from.id) : `chat:${chatId}`, ...(username !== undefined ? { display: username } : {}) },
    content: {
      ...(contentText !== undefined ? { text: contentText } : {}),
      attachments: mediaKind === undefined ? [] : [{ kind: mediaKind }]
    },
    provenance: ["user"]
  }
  return Result.succeed({ thread, message: envelope })
}

/** The text an agent turn gets for a normalised message: its text, a media placeholder `[photo]` before a caption. */
export const turnText = (envelope: MessageEnvelope): string => {
  const media = (envelope.content.attachments ?? []).map((a) => `[${a.kind}]`).join(" ")
  const body = envelope.content.text ?? ""
  return [media, body].filter((part) => part.length > 0).join(" ")
}

/** A button press: the query id, the chat and message the button is in, who pressed it and its data. */
export interface CallbackQuery {
  readonly id: string
  readonly chatId: string
  readonly messageId: number | undefined
  readonly fromId: string
  readonly fromUsername: string | undefined
  readonly data: string
}

/** The update's `callback_query`, when it is one (`undefined` otherwise; a malformed one is a failure). */
export const callbackOf = (update: unknown): Result.Result<CallbackQuery, string> | undefined => {
  if (!isObject(update) || update.callback_query === undefined) return undefined
  const query = update.callback_query
  if (!isObject(query) || typeof query.id !== "string" || query.id === "") return Result.fail("callback_query.id is missing")
  const message = isObject(query.message) ? query.message : undefined
  const chat = isObject(message?.chat) ? message.chat : undefined
  if (chat === undefined || !isId(chat.id)) return Result.fail("callback_query.message.chat.id is missing")
  const from = isObject(query.from) ? query.from : undefined
  if (from === undefined || !isId(from.id)) return Result.fail("callback_query.from.id is missing")
  return Result.succeed({
    id: query.id,
    chatId: String(chat.id),
    messageId: typeof message?.message_id === "number" ? message.message_id : undefined,
    fromId: String(from.id),
    fromUsername: text(from.username),
    data: typeof query.data === "string" ? query.data : ""
  })
}
