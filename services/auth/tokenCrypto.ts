/**
 * Token material: generation, digests and constant-time comparison.
 * Only SHA-256 digests of device tokens are ever stored.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

/** Prefix of every device token, so operators and secret scanners can recognise one. */
export const DEVICE_TOKEN_PREFIX = "svc-device.v1."

/** A new admin token: 32 random bytes, lowercase hex (64 characters). */
export const generateAdminToken = (): string => randomBytes(32).toString("hex")

/** A new device token: `svc-device.v1.` + base64url of 32 random bytes (256 bits of entropy). */
export const generateDeviceToken = (): string => DEVICE_TOKEN_PREFIX + randomBytes(32).toString("base64url")

/** Lowercase hex SHA-256 of the token's UTF-8 bytes: the only form a device token is stored in. */
export const tokenDigest = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex")

/** Raw SHA-256 bytes, used to compare secrets of any length in constant time. */
const digestBytes = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest()

/**
 * Constant-time equality of two secrets of any length (compares their SHA-256
 * digests with `timingSafeEqual`, so neither content nor length leaks).
 */
export const secretEquals = (a: string, b: string): boolean => timingSafeEqual(digestBytes(a), digestBytes(b))

/**
 * Builds a constant-time matcher for one fixed secret; the secret's digest is
 * computed once, so each check hashes only the candidate.
 */
export const makeSecretMatcher = (secret: string): ((candidate: string) => boolean) => {
  const expected = digestBytes(secret)
  return (candidate) => timingSafeEqual(expected, digestBytes(candidate))
}
