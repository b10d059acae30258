/**
 * The Node-free half of the device identity of the WebSocket handshake v2
 * (reference §5.2), shared byte for byte by the gateway
 * (services/ws-sessions/deviceIdentity.ts, verification) and the client SDK
 * (src/client/deviceKey.ts, signing in Node, Deno and browsers):
 *
 * - `device_id = "dev_" + base32(lowercase, no padding)(sha256(pubkey DER bytes))`;
 * - the transcript a device signs: the UTF-8 of six lines, each ending in `\n`:
 *   `svc-connect-proof`, `protocol_rev=<n>`, `role=<role>`, `device_id=<id>`,
 *   `connection_id=<id>`, `challenge=<challenge>`.
 *
 * No import here may need Node (the client's browser bundle includes it;
 * test/client/browser-bundle.test.ts checks).
 *
 * @module
 */

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567"

/** RFC 4648 base32, lowercase alphabet, no padding (the alphabet of `device_id`). */
export const base32LowerNoPad = (bytes: Uint8Array): string => {
  let out = ""
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
    buffer &= (1 << bits) - 1
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31]
  return out
}

/** `device_id` of the SHA-256 digest of a DER SPKI public key: `dev_` + 52 lowercase base32 characters. */
export const deviceIdOfDigest = (sha256OfDer: Uint8Array): string => "dev_" + base32LowerNoPad(sha256OfDer)

/** The fields of the `connect.proof` transcript. */
export interface ProofTranscriptFields {
  readonly protocolRev: number
  readonly role: string
  readonly deviceId: string
  readonly connectionId: string
  readonly challenge: string
}

/** The exact bytes a device signs in `connect.proof` (UTF-8 of the six lines above). */
export const proofTranscriptBytes = (fields: ProofTranscriptFields): Uint8Array<ArrayBuffer> =>
  new TextEncoder().encode(
    "svc-connect-proof\n" +
      `protocol_rev=${fields.protocolRev}\n` +
      `role=${fields.role}\n` +
      `device_id=${fields.deviceId}\n` +
      `connection_id=${fields.connectionId}\n` +
      `challenge=${fields.challenge}\n`
  ) as Uint8Array<ArrayBuffer>
