/**
 * AES-256-GCM for the `db` secret provider, with Node's `node:crypto` (no
 * hand-rolled cryptography): a random 12-byte IV per value, the 16-byte
 * authentication tag, and associated data binding the ciphertext to its
 * handle and version (a row copied onto another handle does not decrypt).
 *
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import { sha256Hex } from "../../services/shared/sha256.ts"

/** An encrypted value as stored (base64 text columns). */
export interface Sealed {
  readonly key_id: string
  readonly iv: string
  readonly tag: string
  readonly ciphertext: string
}

/** Length of a master key in bytes (AES-256). */
export const KEY_BYTES = 32

/** The key id: the first 16 hex characters of the key's SHA-256 (identifies a key without revealing it). */
export const keyId = (key: Uint8Array): string => sha256Hex(key).slice(0, 16)

/** Encrypts `plaintext` under `key`, bound to `aad`. */
export const seal = (key: Uint8Array, plaintext: string, aad: string): Sealed => {
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(Buffer.from(aad, "utf8"))
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  return {
    key_id: keyId(key),
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    ciphertext: ciphertext.toString("base64")
  }
}

/** Decrypts a {@link Sealed} value; `undefined` when authentication fails (wrong key, tampered row, other `aad`). */
export const open = (key: Uint8Array, sealed: Sealed, aad: string): string | undefined => {
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64"))
    decipher.setAAD(Buffer.from(aad, "utf8"))
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64"))
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, "base64")), decipher.final()]).toString("utf8")
  } catch {
    return undefined
  }
}
