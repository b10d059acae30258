/**
 * The webhook envelope, pure (services/watchers/webhook/signature.ts): fixed
 * OpenSSL vectors (seconds and milliseconds timestamps, a binary body, a
 * reordered JSON body), every malformed header, the window bounds in both
 * directions, and constant-time verification over the decoded bytes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import {
  bodySha256,
  nonceDigest,
  parseEnvelope,
  REJECTION_MESSAGES,
  signedBytes,
  signWebhook,
  verifySignature,
  WEBHOOK_HEADERS,
  withinWindow
} from "../../../../services/watchers/webhook/signature.ts"
import {
  BINARY_BODY,
  BODY,
  BODY_REORDERED,
  BODY_SHA256,
  NONCE,
  NONCE_DIGEST,
  SECRET,
  SIG_BINARY,
  SIG_MS,
  SIG_REORDERED,
  SIG_S,
  TIMESTAMP_MS,
  TIMESTAMP_S
} from "./vectors.ts"

const bytes = (s: string) => new TextEncoder().encode(s)
const headers = (over: Record<string, string | undefined> = {}) => ({
  [WEBHOOK_HEADERS.signature]: `sha256=${SIG_S}`,
  [WEBHOOK_HEADERS.timestamp]: TIMESTAMP_S,
  [WEBHOOK_HEADERS.nonce]: NONCE,
  ...over
})
const parsed = (h: Record<string, string | undefined>) => {
  const r = parseEnvelope(h)
  if (Result.isFailure(r)) throw new Error("expected a valid envelope")
  return r.success
}

describe("signWebhook (fixed vectors)", () => {
  it("matches OpenSSL for a seconds timestamp, a milliseconds timestamp, a reordered body and a binary body", () => {
    expect(signWebhook(SECRET, TIMESTAMP_S, NONCE, BODY)).toBe(`sha256=${SIG_S}`)
    expect(signWebhook(SECRET, TIMESTAMP_S, NONCE, bytes(BODY))).toBe(`sha256=${SIG_S}`)
    expect(signWebhook(SECRET, TIMESTAMP_MS, NONCE, BODY)).toBe(`sha256=${SIG_MS}`)
    expect(signWebhook(SECRET, TIMESTAMP_S, NONCE, BODY_REORDERED)).toBe(`sha256=${SIG_REORDERED}`)
    expect(signWebhook(SECRET, TIMESTAMP_S, NONCE, BINARY_BODY)).toBe(`sha256=${SIG_BINARY}`)
  })

  it("signs '<timestamp>.<nonce>.' followed by the body bytes as they are", () => {
    expect(Array.from(signedBytes("1700000000", "n", BINARY_BODY))).toEqual([
      ...Array.from(bytes("1700000000.n.")),
      0x00,
      0xff,
      0xfe
    ])
  })

  it("digests: nonce and body as lowercase hex SHA-256", () => {
    expect(nonceDigest(NONCE)).toBe(NONCE_DIGEST)
    expect(bodySha256(bytes(BODY))).toBe(BODY_SHA256)
  })
})

describe("parseEnvelope", () => {
  it("reads the three headers (names in any case), seconds ×1000 and milliseconds as is", () => {
    const s = parsed(headers())
    expect(s.timestamp).toBe(TIMESTAMP_S)
    expect(s.timestamp_ms).toBe(1_700_000_000_000)
    expect(s.nonce).toBe(NONCE)
    expect(Buffer.from(s.signature).toString("hex")).toBe(SIG_S)
    const ms = parsed({ "X-Svc-Webhook-Signature": `SHA256=${SIG_MS.toUpperCase()}`, "X-SVC-WEBHOOK-TIMESTAMP": TIMESTAMP_MS, "x-Svc-webhook-Nonce": "abc_-XYZ09" })
    expect(ms.timestamp_ms).toBe(1_700_000_000_000)
    expect(Buffer.from(ms.signature).toString("hex")).toBe(SIG_MS)
    expect(parsed(headers({ [WEBHOOK_HEADERS.nonce]: "a".repeat(256) })).nonce).toHaveLength(256)
  })

  it.each([
    ["no signature", { [WEBHOOK_HEADERS.signature]: undefined }],
    ["no timestamp", { [WEBHOOK_HEADERS.timestamp]: undefined }],
    ["no nonce", { [WEBHOOK_HEADERS.nonce]: undefined }],
    ["an empty signature", { [WEBHOOK_HEADERS.signature]: "" }],
    ["another prefix", { [WEBHOOK_HEADERS.signature]: `sha1=${SIG_S}` }],
    ["no prefix", { [WEBHOOK_HEADERS.signature]: SIG_S }],
    ["63 hex digits", { [WEBHOOK_HEADERS.signature]: `sha256=${SIG_S.slice(1)}` }],
    ["65 hex digits", { [WEBHOOK_HEADERS.signature]: `sha256=${SIG_S}0` }],
    ["a non-hex digit", { [WEBHOOK_HEADERS.signature]: `sha256=${SIG_S.slice(1)}g` }],
    ["two signatures", { [WEBHOOK_HEADERS.signature]: `sha256=${SIG_S}, sha256=${SIG_S}` }],
    ["a 9-digit timestamp", { [WEBHOOK_HEADERS.timestamp]: "170000000" }],
    ["an 11-digit timestamp", { [WEBHOOK_HEADERS.timestamp]: "17000000000" }],
    ["a 12-digit timestamp", { [WEBHOOK_HEADERS.timestamp]: "170000000000" }],
    ["a 14-digit timestamp", { [WEBHOOK_HEADERS.timestamp]: "17000000000000" }],
    ["a signed timestamp", { [WEBHOOK_HEADERS.timestamp]: "+700000000" }],
    ["a decimal timestamp", { [WEBHOOK_HEADERS.timestamp]: "1700000000.5" }],
    ["an empty nonce", { [WEBHOOK_HEADERS.nonce]: "" }],
    ["a nonce with /", { [WEBHOOK_HEADERS.nonce]: "ab/cd" }],
    ["a nonce with =", { [WEBHOOK_HEADERS.nonce]: "abcd==" }],
    ["a nonce with a space", { [WEBHOOK_HEADERS.nonce]: "ab cd" }],
    ["a 257-character nonce", { [WEBHOOK_HEADERS.nonce]: "a".repeat(257) }]
  ])("%s → envelope", (_, over) => {
    expect(parseEnvelope(headers(over))).toEqual(Result.fail("envelope"))
  })
})

describe("withinWindow", () => {
  const ts = 1_700_000_000_000
  it("accepts |now − ts| up to the window in both directions and rejects one millisecond more", () => {
    expect(withinWindow(ts, ts, 300_000)).toBe(true)
    expect(withinWindow(ts, ts + 300_000, 300_000)).toBe(true)
    expect(withinWindow(ts, ts - 300_000, 300_000)).toBe(true)
    expect(withinWindow(ts, ts + 300_001, 300_000)).toBe(false)
    expect(withinWindow(ts, ts - 300_001, 300_000)).toBe(false)
    expect(withinWindow(ts, ts + 1, 1)).toBe(true)
    expect(withinWindow(ts, ts + 2, 1)).toBe(false)
  })
})

describe("verifySignature", () => {
  it("accepts the vector (hex in any case) and rejects another body, timestamp, nonce or secret", () => {
    const body = bytes(BODY)
    expect(verifySignature(SECRET, parsed(headers()), body)).toBe(true)
    expect(verifySignature(SECRET, parsed(headers({ [WEBHOOK_HEADERS.signature]: `sha256=${SIG_S.toUpperCase()}` })), body)).toBe(true)
    expect(verifySignature(SECRET, parsed(headers()), bytes(BODY_REORDERED))).toBe(false)
    expect(verifySignature(SECRET, parsed(headers()), bytes(`${BODY} `))).toBe(false)
    expect(verifySignature(SECRET, parsed(headers({ [WEBHOOK_HEADERS.timestamp]: "1700000001" })), body)).toBe(false)
    // The timestamp is signed as sent: the same instant in milliseconds is another message.
    expect(verifySignature(SECRET, parsed(headers({ [WEBHOOK_HEADERS.timestamp]: TIMESTAMP_MS })), body)).toBe(false)
    expect(verifySignature(SECRET, parsed(headers({ [WEBHOOK_HEADERS.nonce]: "other" })), body)).toBe(false)
    expect(verifySignature(`${SECRET}x`, parsed(headers()), body)).toBe(false)
    expect(verifySignature(SECRET, parsed(headers({ [WEBHOOK_HEADERS.signature]: `sha256=${SIG_BINARY}` })), BINARY_BODY)).toBe(true)
  })

  it("has one distinct message per rejection reason", () => {
    expect(new Set(Object.values(REJECTION_MESSAGES)).size).toBe(4)
    expect(REJECTION_MESSAGES).toEqual({
      envelope: "missing or invalid webhook signature envelope",
      window: "webhook timestamp outside allowed replay window",
      signature: "invalid webhook signature",
      secret: "webhook secret not available"
    })
  })
})
