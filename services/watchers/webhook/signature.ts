/**
 * The signed webhook envelope, pure (gateway-api.md "Watchers", "Limits";
 * reference §6.7 "Webhook"; docs/automation.md "Signing a call"):
 *
 * ```
 * x-svc-webhook-signature: sha256=<64 hex>     (hex in any case)
 * x-svc-webhook-timestamp: <10 digits = unix seconds | 13 digits = unix milliseconds>
 * x-svc-webhook-nonce:     [A-Za-z0-9_-]{1,256} (base64url or a uuid)
 *
 * signature = HMAC-SHA256(key = secret (UTF-8), data = "<timestamp>.<nonce>." ++ <raw body bytes>)
 * ```
 *
 * The timestamp is signed exactly as sent and the body exactly as received
 * (bytes, never re-serialised JSON); signatures are compared in constant time
 * over their 32 decoded bytes.
 *
 * @module
 */
import { Result } from "effect"
import { Buffer } from "node:buffer"
import { createHmac, timingSafeEqual } from "node:crypto"
import { sha256Hex } from "../../shared/sha256.ts"

/** Header names (HTTP header names are case-insensitive; these are the lowercase forms). */
export const WEBHOOK_HEADERS = {
  signature: "x-svc-webhook-signature",
  timestamp: "x-svc-webhook-timestamp",
  nonce: "x-svc-webhook-nonce"
} as const

/** Why a call is rejected with 401: `envelope` (missing or malformed headers), `window` (stale or future timestamp), `signature`, `secret` (an empty secret). */
export type RejectionReason = "envelope" | "window" | "signature" | "secret"

/** The 401 message of each {@link RejectionReason} (distinct, so a caller knows what to fix). */
export const REJECTION_MESSAGES: Readonly<Record<RejectionReason, string>> = {
  envelope: "missing or invalid webhook signature envelope",
  window: "webhook timestamp outside allowed replay window",
  signature: "invalid webhook signature",
  secret: "webhook secret not available"
}

/** A parsed envelope. */
export interface WebhookEnvelope {
  /** The 32 signature bytes (decoded from hex). */
  readonly signature: Uint8Array
  /** The timestamp header exactly as sent (what is signed). */
  readonly timestamp: string
  /** The timestamp in unix milliseconds (seconds × 1000 for a 10-digit value). */
  readonly timestamp_ms: number
  /** The nonce exactly as sent. */
  readonly nonce: string
}

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i
const TIMESTAMP = /^(?:\d{10}|\d{13})$/
const NONCE = /^[A-Za-z0-9_-]{1,256}$/

/** The value of header `name` in `headers`, whatever the case of its key. */
const header = (headers: Readonly<Record<string, string | undefined>>, name: string): string | undefined => {
  const direct = headers[name]
  if (direct !== undefined) return direct
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value
  }
  return undefined
}

/**
 * The envelope of a call, from its headers (names in any case), or
 * `"envelope"` when any of the three is missing or malformed.
 */
export const parseEnvelope = (
  headers: Readonly<Record<string, string | undefined>>
): Result.Result<WebhookEnvelope, "envelope"> => {
  const signature = SIGNATURE.exec(header(headers, WEBHOOK_HEADERS.signature) ?? "")
  const timestamp = header(headers, WEBHOOK_HEADERS.timestamp) ?? ""
  const nonce = header(headers, WEBHOOK_HEADERS.nonce) ?? ""
  if (signature === null || !TIMESTAMP.test(timestamp) || !NONCE.test(nonce)) return Result.fail("envelope")
  const value = Number(timestamp)
  return Result.succeed({
    signature: Buffer.from(signature[1]!, "hex"),
    timestamp,
    timestamp_ms: timestamp.length === 10 ? value * 1000 : value,
    nonce
  })
}

/** True when `|nowMs − timestampMs| ≤ maxSkewMs` (all in milliseconds): the replay window, in both directions. */
export const withinWindow = (timestampMs: number, nowMs: number, maxSkewMs: number): boolean =>
  Math.abs(nowMs - timestampMs) <= maxSkewMs

/** The signed bytes: `"<timestamp>.<nonce>."` (UTF-8) followed by the body bytes as they are. */
export const signedBytes = (timestamp: string, nonce: string, body: Uint8Array): Buffer =>
  Buffer.concat([Buffer.from(`${timestamp}.${nonce}.`, "utf8"), body])

/** The 32-byte HMAC-SHA256 of {@link signedBytes} with `secret` (UTF-8) as the key. */
export const computeSignature = (secret: string, timestamp: string, nonce: string, body: Uint8Array): Buffer =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(signedBytes(timestamp, nonce, body)).digest()

/**
 * True when the envelope's signature is the HMAC of `body` under `secret`,
 * compared in constant time (both are 32 bytes by construction).
 */
export const verifySignature = (secret: string, envelope: WebhookEnvelope, body: Uint8Array): boolean =>
  timingSafeEqual(computeSignature(secret, envelope.timestamp, envelope.nonce, body), envelope.signature)

/**
 * The `x-svc-webhook-signature` value for a call: `sha256=<lowercase hex>`.
 * `body` as a string is signed as its UTF-8 bytes. What a sender computes
 * (docs/automation.md shows the same with `openssl dgst -sha256 -hmac`).
 */
export const signWebhook = (secret: string, timestamp: string, nonce: string, body: Uint8Array | string): string =>
  "sha256=" +
  computeSignature(secret, timestamp, nonce, typeof body === "string" ? Buffer.from(body, "utf8") : body).toString("hex")

/** Lowercase hex SHA-256 of the nonce (UTF-8): how an accepted nonce is stored (never the nonce itself). */
export const nonceDigest = (nonce: string): string => sha256Hex(nonce)

/**
 * The nonce's key under its secret: lowercase hex HMAC-SHA256(key = secret,
 * data = `"svc.webhook.nonce." ++ nonce`). Stored with the firing
 * (`watcher_firings.nonce_key`, unique across watchers), so a nonce is
 * accepted once per secret: a delivery accepted by one watcher is a replay at
 * every other watcher that shares its secret (issue 20 §3.7; the spec's signed
 * string `<timestamp>.<nonce>.<body>` names no watcher). One-way: the secret
 * cannot be read back from it.
 */
export const nonceKey = (secret: string, nonce: string): string =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(`svc.webhook.nonce.${nonce}`, "utf8").digest("hex")

/** Lowercase hex SHA-256 of the body bytes (recorded with a firing instead of the body). */
export const bodySha256 = (body: Uint8Array): string => sha256Hex(body)
