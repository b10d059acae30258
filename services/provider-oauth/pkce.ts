/**
 * PKCE (RFC 7636) and the OAuth `state`: both are 32 random bytes from the
 * operating system's CSPRNG, base64url without padding (43 characters), so
 * neither can be guessed. The challenge is S256:
 * `base64url(SHA-256(ASCII(verifier)))`.
 *
 * @module
 */
import { randomBytes } from "node:crypto"
import { sha256 } from "../shared/sha256.ts"

/** Base64url without padding (RFC 4648 §5). */
export const base64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")

/** A fresh random token: `bytes` (default 32) random bytes, base64url. */
export const randomToken = (bytes = 32): string => base64url(randomBytes(bytes))

/** A fresh code verifier: 32 random bytes, base64url (43 characters, within RFC 7636's 43–128). */
export const makeVerifier = (): string => randomToken(32)

/** The S256 code challenge of `verifier` (ASCII by construction: {@link makeVerifier}). */
export const challengeS256 = (verifier: string): string => base64url(sha256(verifier))
