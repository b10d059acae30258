/**
 * Scoped node tokens (docs/pairing.md "Scoped node tokens"): issued when a
 * pairing is approved, sent once to the node's own live connections, and
 * stored only as a SHA-256 digest (the same digest as device tokens,
 * services/auth/tokenCrypto.ts). The prefix tells the WS upgrade which
 * authority resolves a presented token.
 */
import { randomBytes } from "node:crypto"

/** Prefix of every scoped node token, so the gateway (and secret scanners) can recognise one. */
export const NODE_TOKEN_PREFIX = "svc-node.v1."

/** A new scoped node token: `svc-node.v1.` + base64url of 32 random bytes (256 bits of entropy). */
export const generateNodeToken = (): string => NODE_TOKEN_PREFIX + randomBytes(32).toString("base64url")

/** True when `token` has the scoped node token prefix (it may still be unknown or revoked). */
export const isNodeToken = (token: string): boolean => token.startsWith(NODE_TOKEN_PREFIX)
