/**
 * Token material: generation, digests and constant-time comparison.
 * Only SHA-256 digests of device tokens are ever stored
 * (services/shared/sha256.ts).
 *
 * @module
 */
import { randomBytes, timingSafeEqual } from "node:crypto"
import { sha256, sha256Hex } from "../shared/sha256.ts"

/** Prefix of every device token, so operators and secret scanners can recognise one. */
export const DEVICE_TOKEN_PREFIX = "svc-device.v1."

/** A new admin token: 32 random bytes, lowercase hex (64 characters). */
export const generateAdminToken = (): string => randomBytes(32).toString("hex")

/** A new device token: `svc-device.v1.` + base64url of 32 random bytes (256 bits of entropy). */
export const generateDeviceToken = (): string => DEVICE_TOKEN_PREFIX + randomBytes(32).toString("base64url")

/** Lowercase hex SHA-256 of the token's UTF-8 bytes: the only form a device token is stored in. */
export const tokenDigest = (token: string): string => sha256Hex(token)

/**
 * Constant-time equality of two secrets of any length (compares their SHA-256
 * digests with `timingSafeEqual`, so neither content nor length leaks).
 */
export const secretEquals = (a: string, b: string): boolean => timingSafeEqual(sha256(a), sha256(b))

/**
 * Builds a constant-time matcher for one fixed secret; the secret's digest is
 * computed once, so each check hashes only the candidate.
 */
export const makeSecretMatcher = (secret: string): ((candidate: string) => boolean) => {
  const expected = sha256(secret)
  return (candidate) => timingSafeEqual(expected, sha256(candidate))
}
