/**
 * Signed callback data of the approve/deny buttons (docs/messenger.md
 * "Approvals in the chat"): `ap:<approval id>:<a|d>:<nonce>:<signature>`,
 * at most 64 bytes (the Bot API's limit). The signature is the first 22
 * base64url characters (132 bits) of HMAC-SHA256 over `<approval id>:<a|d>:
 * <nonce>:<chat id>`, keyed with a key derived from `MESSENGER_WEBHOOK_SECRET`;
 * the nonce is the prompt's (stored with it), so data made for another
 * prompt, chat or decision does not verify. Single use is the prompt's
 * `used_at` (InboxRepo.usePrompt).
 *
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import type { ApprovalDecision } from "../approvals/schema.ts"

/** A decoded button: the approval, the decision, the prompt's nonce and the signature as sent. */
export interface CallbackButton {
  readonly approvalId: number
  readonly decision: ApprovalDecision
  readonly nonce: string
  readonly signature: string
}

const PATTERN = /^ap:(\d{1,12}):([ad]):([A-Za-z0-9_-]{8}):([A-Za-z0-9_-]{22})$/

/** The HMAC key of the buttons, derived from the webhook secret (never the secret itself). */
export const callbackKey = (webhookSecret: string): Buffer =>
  createHmac("sha256", webhookSecret).update("svc-gateway messenger callback data v1").digest()

/** A fresh prompt nonce: 8 base64url characters. */
export const newNonce = (): string => randomBytes(6).toString("base64url")

const signatureOf = (key: Buffer, approvalId: number, decision: "a" | "d", nonce: string, chatId: string): string =>
  createHmac("sha256", key).update(`${approvalId}:${decision}:${nonce}:${chatId}`).digest("base64url").slice(0, 22)

/** The callback data of a button for `chatId`. */
export const signButton = (key: Buffer, approvalId: number, decision: ApprovalDecision, nonce: string, chatId: string): string => {
  const d = decision === "approved" ? "a" : "d"
  return `ap:${approvalId}:${d}:${nonce}:${signatureOf(key, approvalId, d, nonce, chatId)}`
}

/** The button `data` names, when it has the shape (not yet verified). */
export const parseButton = (data: string): CallbackButton | undefined => {
  const match = PATTERN.exec(data)
  if (match === null) return undefined
  return { approvalId: Number(match[1]), decision: match[2] === "a" ? "approved" : "denied", nonce: match[3], signature: match[4] }
}

/** Whether `button` was signed with `key` for `chatId` and carries `nonce` (constant-time compare). */
export const verifyButton = (key: Buffer, button: CallbackButton, nonce: string, chatId: string): boolean => {
  if (button.nonce !== nonce) return false
  const expected = Buffer.from(signatureOf(key, button.approvalId, button.decision === "approved" ? "a" : "d", nonce, chatId))
  const given = Buffer.from(button.signature)
  return expected.length === given.length && timingSafeEqual(expected, given)
}
