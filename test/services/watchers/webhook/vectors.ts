/**
 * Fixed webhook test vectors, computed independently with OpenSSL:
 *
 * ```sh
 * printf '%s' '{"event":"push","ref":"main"}' > body.json
 * (printf '%s' "1700000000.0b6f6c1e-8d0c-4f7e-9a53-2c1d4f0e9b7a."; cat body.json) \
 *   | openssl dgst -sha256 -hmac 'whsec-example-secret' -r
 * ```
 *
 * The same construction as docs/automation.md "Signing a call".
 */
export const SECRET = "whsec-example-secret"
export const NONCE = "0b6f6c1e-8d0c-4f7e-9a53-2c1d4f0e9b7a"
export const BODY = "{\"event\":\"push\",\"ref\":\"main\"}"
/** The same JSON object with its keys in another order (other bytes, so another signature). */
export const BODY_REORDERED = "{\"ref\":\"main\",\"event\":\"push\"}"
export const TIMESTAMP_S = "1700000000"
export const TIMESTAMP_MS = "1700000000000"

/** HMAC-SHA256(SECRET, "1700000000.<NONCE>." ++ BODY). */
export const SIG_S = "c829496d1f36a3b422e084a1a1d2d8c738404db33bf6008eff8fad2be93012f0"
/** HMAC-SHA256(SECRET, "1700000000000.<NONCE>." ++ BODY). */
export const SIG_MS = "e7b54586094d500b0a164d277bd07b8c01396069bba745c816cc531db21762a6"
/** HMAC-SHA256(SECRET, "1700000000.<NONCE>." ++ BODY_REORDERED). */
export const SIG_REORDERED = "76d51c6a7c0e8083b0c960430c2412399b4209f121ca298fc823ec9bc6f3dc7a"
/** HMAC-SHA256(SECRET, "1700000000.<NONCE>." ++ bytes 00 ff fe): a body that is not UTF-8. */
export const SIG_BINARY = "3f46a495a28e9ee46022b4b11cadf01e0402f71cbbf72d6e27dd7a41b5889591"
export const BINARY_BODY = new Uint8Array([0x00, 0xff, 0xfe])
/** SHA-256 of NONCE (UTF-8). */
export const NONCE_DIGEST = "8a367c0802392a387f8245e16fda8d868f8f254925a8a9938653473811952efa"
/** SHA-256 of BODY. */
export const BODY_SHA256 = "238e80265adee992dea79c1732a986b243c4da9cd628bf6aa0f58378fe457221"
