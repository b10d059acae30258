/**
 * Device identity of the WebSocket handshake v2 (reference §5.2), shared by
 * the gateway (verification) and the client SDK (signing):
 *
 * - `pubkey` is base64url of an Ed25519 public key in DER SPKI form;
 * - `device_id = "dev_" + base32(lowercase, no padding)(sha256(pubkey DER bytes))` (52 characters after the prefix);
 * - the proof is an Ed25519 signature (base64url) over the UTF-8 transcript of six
 *   lines, each ending in `\n`: `svc-connect-proof`, `protocol_rev=<n>`, `role=<role>`,
 *   `device_id=<id>`, `connection_id=<id>`, `challenge=<challenge>`.
 */
import { createPublicKey, verify } from "node:crypto"
import { sha256 } from "../shared/sha256.ts"

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567"

/** RFC 4648 base32, lowercase alphabet, no padding. */
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

/** `dev_` + base32(sha256(DER SPKI bytes)). */
export const deviceIdFromPublicKeyDer = (der: Uint8Array): string =>
  "dev_" + base32LowerNoPad(sha256(der))

/** `device_id` for a base64url DER SPKI public key. */
export const deviceIdFromPubkey = (pubkey: string): string => deviceIdFromPublicKeyDer(Buffer.from(pubkey, "base64url"))

/** The exact bytes a device signs in `connect.proof`. */
export const proofTranscript = (fields: {
  readonly protocolRev: number
  readonly role: string
  readonly deviceId: string
  readonly connectionId: string
  readonly challenge: string
}): Buffer =>
  Buffer.from(
    "svc-connect-proof\n" +
      `protocol_rev=${fields.protocolRev}\n` +
      `role=${fields.role}\n` +
      `device_id=${fields.deviceId}\n` +
      `connection_id=${fields.connectionId}\n` +
      `challenge=${fields.challenge}\n`,
    "utf8"
  )

/**
 * True when `proof` (base64url Ed25519 signature) verifies `transcript` with
 * the base64url DER SPKI `pubkey`. Malformed keys or signatures are `false`,
 * never an exception.
 */
export const verifyProof = (pubkey: string, transcript: Uint8Array, proof: string): boolean => {
  try {
    const key = createPublicKey({ key: Buffer.from(pubkey, "base64url"), format: "der", type: "spki" })
    if (key.asymmetricKeyType !== "ed25519") return false
    return verify(null, transcript, key, Buffer.from(proof, "base64url"))
  } catch {
    return false
  }
}
