/**
 * Fixed webhook test vectors, computed independently with OpenSSL:
 *
 * ```sh
 * printf '%s' '{"event":"push","ref":"main"}' > body.json
 * (printf '%s' "1.1700000000.0b6f6c1e-8d0c-4f7e-9a53-2c1d4f0e9b7a."; cat body.json) \
 *   | openssl dgst -sha256 -hmac 'whsec-example-secret' -r
 * ```
 *
 * (`1.` is the watcher id: every vector is for watcher 1 unless it says otherwise.)
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
/** The watcher the vectors are signed for. */
export const WATCHER_ID = 1

/** HMAC-SHA256(SECRET, "1.1700000000.<NONCE>." ++ BODY). */
export const SIG_S = "5a6583e2d8e414664d2ce047e866b619560a2b26e59043458cac079135d45331"
/** HMAC-SHA256(SECRET, "1.1700000000000.<NONCE>." ++ BODY). */
export const SIG_MS = "a0e8089de83b91c98fc4c9a3cc0070d3c7dbff33bac9b737b349b392852e95f7"
/** HMAC-SHA256(SECRET, "1.1700000000.<NONCE>." ++ BODY_REORDERED). */
export const SIG_REORDERED = "a4d9074b7caa8d07a6e663617b00d401ce46bbe49e3811c19607cfe6765f9cb4"
/** HMAC-SHA256(SECRET, "1.1700000000.<NONCE>." ++ bytes 00 ff fe): a body that is not UTF-8. */
export const SIG_BINARY = "13b0bb2f50f7e6412ab121f16d5e0762cc2d7dd7bb035cf9c71f5254d3a75afb"
/** HMAC-SHA256(SECRET, "2.1700000000.<NONCE>." ++ BODY): the same delivery signed for watcher 2. */
export const SIG_S_WATCHER_2 = "5527838972b9f903b3e4ffaf5020a1cd6b857ece953a493c4fe520d3c7dc18c7"
export const BINARY_BODY = new Uint8Array([0x00, 0xff, 0xfe])
/** SHA-256 of NONCE (UTF-8). */
export const NONCE_DIGEST = "8a367c0802392a387f8245e16fda8d868f8f254925a8a9938653473811952efa"
/** SHA-256 of BODY. */
export const BODY_SHA256 = "238e80265adee992dea79c1732a986b243c4da9cd628bf6aa0f58378fe457221"
