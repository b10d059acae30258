/**
 * The rules of the WebSocket handshake v2 (gateway-api.md "WebSocket API",
 * "Versioning"; reference §5.2), independent of the socket: what a valid
 * `connect.init` is for the authenticated principal, the challenge, and the
 * check of `connect.proof`. The transport (src/ws/connection.ts) reads the
 * messages and closes the socket with the refusal's close code.
 */
import { randomBytes } from "node:crypto"
import type { Principal } from "../auth/principal.ts"
import { deviceIdFromPubkey, proofTranscript, verifyProof } from "./deviceIdentity.ts"
import { GATEWAY_PROTOCOL_REV, WsCloseCode, type WsConnectInitRequest, type WsError } from "./schema.ts"

/** Why a handshake step is refused: the close code and reason, and the response to send first, if any. */
export interface HandshakeRefusal {
  readonly closeCode: number
  readonly reason: string
  readonly response?: WsError | undefined
}

/** A `connect.init` the gateway accepts: the proven-to-be device id and the challenge to sign. */
export interface AcceptedInit {
  readonly deviceId: string
  readonly challenge: string
}

/**
 * Checks `connect.init` for `principal`: the protocol revision (4005), that
 * `device_id` is derived from `pubkey` (4006), that a device token is used by
 * the role and device it was issued to (4001), and that a scoped node token is
 * used by its paired node with role `node` (4008 `scoped token mismatch`).
 * Issues a fresh challenge (32 random bytes, base64url) when accepted.
 */
export const acceptInit = (init: WsConnectInitRequest, principal: Principal): AcceptedInit | HandshakeRefusal => {
  if (init.protocol_rev !== GATEWAY_PROTOCOL_REV) {
    return {
      closeCode: WsCloseCode.protocolRevMismatch,
      reason: "protocol_rev mismatch",
      response: { code: "protocol_rev_mismatch", message: `gateway protocol_rev is ${GATEWAY_PROTOCOL_REV}, got ${init.protocol_rev}` }
    }
  }
  const deviceId = deviceIdFromPubkey(init.device.pubkey)
  if (deviceId !== init.device.device_id) return { closeCode: WsCloseCode.deviceIdMismatch, reason: "device_id mismatch" }
  switch (principal.kind) {
    case "admin":
      break
    case "device":
      if (principal.role !== init.role || principal.deviceId !== deviceId) {
        return { closeCode: WsCloseCode.unauthorized, reason: "unauthorized" }
      }
      break
    case "node":
      if (init.role !== "node" || principal.nodeId !== deviceId) {
        return { closeCode: WsCloseCode.scopedTokenMismatch, reason: "scoped token mismatch" }
      }
      break
  }
  return { deviceId, challenge: randomBytes(32).toString("base64url") }
}

/** True when a step's result is a refusal. */
export const isRefusal = (u: AcceptedInit | HandshakeRefusal | undefined): u is HandshakeRefusal =>
  u !== undefined && "closeCode" in u

/**
 * Checks `connect.proof`: it names this connection (4003) and its Ed25519
 * signature verifies over the transcript (4007). `undefined` when accepted.
 */
export const checkProof = (fields: {
  readonly init: WsConnectInitRequest
  readonly deviceId: string
  readonly connectionId: string
  readonly challenge: string
  readonly proofConnectionId: string
  readonly proof: string
}): HandshakeRefusal | undefined => {
  if (fields.proofConnectionId !== fields.connectionId) {
    return { closeCode: WsCloseCode.protocolViolation, reason: "connection_id mismatch" }
  }
  const transcript = proofTranscript({
    protocolRev: fields.init.protocol_rev,
    role: fields.init.role,
    deviceId: fields.deviceId,
    connectionId: fields.connectionId,
    challenge: fields.challenge
  })
  return verifyProof(fields.init.device.pubkey, transcript, fields.proof)
    ? undefined
    : { closeCode: WsCloseCode.invalidProof, reason: "invalid proof" }
}
