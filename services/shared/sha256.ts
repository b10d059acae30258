/**
 * SHA-256, the one helper every digest goes through (token and nonce
 * digests, canonical-JSON hashes, key ids, device ids, PKCE challenges).
 * Keyed MACs stay `createHmac` where they are made: they are not digests.
 *
 * A string is hashed as its UTF-8 bytes (a lone surrogate as U+FFFD, as
 * Node's `Buffer` and WebCrypto's `TextEncoder` both write it); bytes are
 * hashed as they are. Synchronous, over `node:crypto` (Node 20, Deno 2).
 *
 * @module
 */
import { createHash } from "node:crypto"

/** The 32-byte SHA-256 digest of `input` (a string as UTF-8). */
export const sha256 = (input: string | Uint8Array): Uint8Array => createHash("sha256").update(input).digest()

/** The SHA-256 digest of `input` (a string as UTF-8) as 64 lowercase hex characters. */
export const sha256Hex = (input: string | Uint8Array): string => createHash("sha256").update(input).digest("hex")
