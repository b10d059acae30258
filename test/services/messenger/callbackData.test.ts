/**
 * The signed callback data of the chat's approve/deny buttons
 * (services/messenger/callbackData.ts): within the Bot API's 64 bytes,
 * verified only for the prompt's nonce, the chat and the decision it was
 * signed for, and only with the key of the same webhook secret.
 */
import { describe, expect, it } from "@effect/vitest"
import { callbackKey, newNonce, parseButton, signButton, verifyButton } from "../../../services/messenger/callbackData.ts"

const key = callbackKey("webhook-secret")

describe("callback data", () => {
  it("fits in 64 bytes and verifies for its prompt, chat and decision", () => {
    const nonce = newNonce()
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{8}$/)
    const data = signButton(key, 999_999_999_999, "approved", nonce, "-1001234567890")
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64)
    const button = parseButton(data)!
    expect(button).toMatchObject({ approvalId: 999_999_999_999, decision: "approved", nonce })
    expect(verifyButton(key, button, nonce, "-1001234567890")).toBe(true)
  })

  it("does not verify another chat, nonce, decision, approval, key or a changed signature", () => {
    const nonce = newNonce()
    const data = signButton(key, 12, "denied", nonce, "42")
    const button = parseButton(data)!
    expect(verifyButton(key, button, nonce, "43")).toBe(false)
    expect(verifyButton(key, button, newNonce(), "42")).toBe(false)
    expect(verifyButton(key, { ...button, decision: "approved" }, nonce, "42")).toBe(false)
    expect(verifyButton(key, { ...button, approvalId: 13 }, nonce, "42")).toBe(false)
    expect(verifyButton(callbackKey("another secret"), button, nonce, "42")).toBe(false)
    const flipped = button.signature.slice(0, -1) + (button.signature.endsWith("A") ? "B" : "A")
    expect(verifyButton(key, { ...button, signature: flipped }, nonce, "42")).toBe(false)
  })

  it("parses only its own shape", () => {
    for (const data of ["", "ap:1:a", "ap:x:a:abcdefgh:" + "a".repeat(22), "ap:1:y:abcdefgh:" + "a".repeat(22), "ap:1:a:abc:" + "a".repeat(22)]) {
      expect(parseButton(data)).toBeUndefined()
    }
  })
})
