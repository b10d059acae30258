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
import { deviceIdOfDigest, proofTranscriptBytes } from "./proofTranscript.ts"

export { base32LowerNoPad } from "./proofTranscript.ts"

/** `dev_` + base32(sha256(DER SPKI bytes)). */
export const deviceIdFromPublicKeyDer = (der: Uint8Array): string =>
  deviceIdOfDigest(sha256(der))

/** `device_id` for a base64url DER SPKI public key. */
export const deviceIdFromPubkey = (pubkey: string): string => deviceIdFromPublicKeyDer(Buffer.from(pubkey, "base64url"))

/** The exact bytes a device signs in `connect.proof` (services/ws-sessions/proofTranscript.ts). */
export const proofTranscript = (fields: {
  readonly protocolRev: number
  readonly role: string
  readonly deviceId: string
  readonly connectionId: string
  readonly challenge: string
}): Buffer => Buffer.from(proofTranscriptBytes(fields))

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
