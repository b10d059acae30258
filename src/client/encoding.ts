/**
 * Byte encodings of the client SDK without Node's `Buffer` (browsers, Deno,
 * Node): UTF-8, base64url (RFC 4648 §5, no padding) and lowercase unpadded
 * base32 (the alphabet of `device_id`, services/ws-sessions/deviceIdentity.ts).
 */

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** UTF-8 bytes of `text`. */
export const utf8Bytes = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(text) as Uint8Array<ArrayBuffer>

/** `bytes` decoded as UTF-8 (invalid sequences become U+FFFD). */
export const utf8Text = (bytes: ArrayBuffer | Uint8Array): string => decoder.decode(bytes)

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const B64URL_INDEX = new Map([...B64URL].map((c, i) => [c, i]))

/** base64url of `bytes`, without padding. */
export const base64UrlEncode = (bytes: Uint8Array): string => {
  let out = ""
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out += B64URL[n >>> 18]! + B64URL[(n >>> 12) & 63]! + B64URL[(n >>> 6) & 63]! + B64URL[n & 63]!
  }
  const rest = bytes.length - i
  if (rest === 1) {
    const n = bytes[i]! << 16
    out += B64URL[n >>> 18]! + B64URL[(n >>> 12) & 63]!
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8)
    out += B64URL[n >>> 18]! + B64URL[(n >>> 12) & 63]! + B64URL[(n >>> 6) & 63]!
  }
  return out
}

/**
 * The bytes of a base64url string (padding tolerated, like Node's `Buffer.from(text, "base64url")` for
 * well-formed input).
 *
 * @throws TypeError for a character outside the base64url alphabet or an impossible length.
 */
export const base64UrlDecode = (text: string): Uint8Array<ArrayBuffer> => {
  const body = text.replace(/=+$/, "")
  if (body.length % 4 === 1) throw new TypeError("invalid base64url length")
  const out = new Uint8Array(Math.floor((body.length * 3) / 4))
  let buffer = 0
  let bits = 0
  let o = 0
  for (const c of body) {
    const v = B64URL_INDEX.get(c)
    if (v === undefined) throw new TypeError("invalid base64url character")
    buffer = (buffer << 6) | v
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[o++] = (buffer >>> bits) & 0xff
    }
    buffer &= (1 << bits) - 1
  }
  return out
}

export { base32LowerNoPad } from "../../services/ws-sessions/proofTranscript.ts"

/** A random RFC 4122 version 4 UUID: `crypto.randomUUID` where present (secure contexts), else from `getRandomValues`. */
export const randomUuid = (): string => {
  const c = globalThis.crypto
  if (typeof c.randomUUID === "function") return c.randomUUID()
  const b = c.getRandomValues(new Uint8Array(16))
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
