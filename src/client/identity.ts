/**
 * Device identity of the client SDK in Node (reference §5.2): an Ed25519 key pair
 * whose public key (base64url DER SPKI) names the device through
 * `device_id = deviceIdFromPubkey(pubkey)`, and which signs the
 * `connect.proof` transcript of the WebSocket handshake v2; kept in a 0600
 * JSON file ({@link fileDeviceIdentityStore}).
 *
 * Derivation, transcript and verification live in
 * services/ws-sessions/deviceIdentity.ts; the shapes, the WebCrypto signing
 * the client uses and the store interface in `deviceKey.ts` (no Node
 * built-ins); this module creates, stores and signs with `node:crypto`.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto"
import { readFile, stat, unlink } from "node:fs/promises"
import { tightenPrivateFile, writePrivateFile } from "../../services/shared/privateFile.ts"
import { deviceIdFromPubkey, proofTranscript } from "../../services/ws-sessions/deviceIdentity.ts"
import { GATEWAY_PROTOCOL_REV } from "../../services/ws-sessions/schema.ts"
import {
  type DeviceIdentity,
  DeviceIdentityError,
  type DeviceIdentityStore,
  exportDeviceIdentity,
  generateWebCryptoIdentity,
  loadOrCreateIdentity,
  type ProofFields,
  type StoredDeviceIdentity
} from "./deviceKey.ts"

export {
  type DeviceIdentity,
  DeviceIdentityError,
  type ProofFields,
  type StoredDeviceIdentity
} from "./deviceKey.ts"

/** Creates a fresh Ed25519 device identity (in memory only). */
export const generateDeviceIdentity = (): DeviceIdentity => {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519")
  const pubkey = publicKey.export({ format: "der", type: "spki" }).toString("base64url")
  return {
    device_id: deviceIdFromPubkey(pubkey),
    pubkey,
    private_key: privateKey.export({ format: "der", type: "pkcs8" }).toString("base64url")
  }
}

const privateKeyCache = new WeakMap<DeviceIdentity, KeyObject>()

const privateKeyOf = (identity: DeviceIdentity): KeyObject => {
  const cached = privateKeyCache.get(identity)
  if (cached !== undefined) return cached
  let key: KeyObject
  try {
    key = createPrivateKey({ key: Buffer.from(identity.private_key, "base64url"), format: "der", type: "pkcs8" })
  } catch (cause) {
    throw new DeviceIdentityError("private_key is not a base64url DER PKCS#8 key", { cause })
  }
  if (key.asymmetricKeyType !== "ed25519") throw new DeviceIdentityError("private_key is not an Ed25519 key")
  privateKeyCache.set(identity, key)
  return key
}

/**
 * Checks that `value` is a usable identity: string fields, an Ed25519 key
 * pair that belongs together, and `device_id === deviceIdFromPubkey(pubkey)`.
 * Returns a {@link DeviceIdentity} holding only the three fields.
 *
 * @throws DeviceIdentityError describing the first problem (without key material).
 */
export const validateDeviceIdentity = (value: unknown, path?: string): DeviceIdentity => {
  const fail = (message: string, cause?: unknown): never => {
    throw new DeviceIdentityError(message, { path, cause })
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail("expected a JSON object")
  const record = value as Record<string, unknown>
  for (const field of ["device_id", "pubkey", "private_key"] as const) {
    if (typeof record[field] !== "string" || record[field] === "") fail(`${field} must be a non-empty string`)
  }
  const identity: DeviceIdentity = {
    device_id: record["device_id"] as string,
    pubkey: record["pubkey"] as string,
    private_key: record["private_key"] as string
  }
  let publicKey: KeyObject
  try {
    publicKey = createPublicKey({ key: Buffer.from(identity.pubkey, "base64url"), format: "der", type: "spki" })
  } catch (cause) {
    return fail("pubkey is not a base64url DER SPKI key", cause)
  }
  if (publicKey.asymmetricKeyType !== "ed25519") fail("pubkey is not an Ed25519 key")
  let privateKey: KeyObject
  try {
    privateKey = privateKeyOf(identity)
  } catch (cause) {
    return fail(cause instanceof Error ? cause.message : "private_key is invalid", cause)
  }
  const derivedPub = createPublicKey(privateKey).export({ format: "der", type: "spki" }).toString("base64url")
  if (derivedPub !== Buffer.from(identity.pubkey, "base64url").toString("base64url")) {
    fail("private_key does not belong to pubkey")
  }
  if (identity.device_id !== deviceIdFromPubkey(identity.pubkey)) fail("device_id is not derived from pubkey")
  return identity
}

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT"

/** A zero-length file: what an interrupted write of an older version left (the current one writes whole files only). */
class EmptyIdentityFile extends Error {}

const readIdentityFile = async (path: string): Promise<DeviceIdentity> => {
  const text = await readFile(path, "utf8")
  if (text.length === 0) throw new EmptyIdentityFile()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (cause) {
    throw new DeviceIdentityError("not valid JSON (corrupt file?)", { path, cause })
  }
  if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
    const version = (parsed as { v?: unknown }).v
    if (version === undefined) throw new DeviceIdentityError("missing format version v (expected 1)", { path })
    if (version !== 1) {
      throw new DeviceIdentityError(`unsupported format version ${JSON.stringify(version)} (expected 1)`, { path })
    }
  }
  const identity = validateDeviceIdentity(parsed, path)
  // The file holds a private key: tighten permissions a copy or an editor may have loosened.
  await tightenPrivateFile(path, (await stat(path)).mode)
  return identity
}

/**
 * Loads the device identity stored at `path`, or creates one there when the
 * file does not exist.
 *
 * The file is JSON {@link StoredDeviceIdentity} `{v: 1, device_id, pubkey, private_key}`
 * written with mode 0600 (its directory, when created, gets 0700), whole or
 * not at all (services/shared/privateFile.ts). Creation is exclusive: when
 * two processes race, both end up with the identity that was written first.
 * A loaded file readable by group or others is reset to 0600. A zero-length
 * file (left by an interrupted write of an older version) is replaced by a
 * new identity.
 *
 * @throws DeviceIdentityError when the file has content but is corrupt or
 *   inconsistent (it is never overwritten); file-system errors (permissions)
 *   propagate as is.
 */
export const loadOrCreateDeviceIdentity = (path: string): Promise<DeviceIdentity> =>
  loadOrCreateIdentity(fileDeviceIdentityStore(path))

/**
 * The {@link DeviceIdentityStore} of {@link loadOrCreateDeviceIdentity}: the JSON file at `path`
 * (`{v: 1, device_id, pubkey, private_key}`, mode 0600, exclusive creation; see there). `load` resolves
 * `undefined` for a missing file and for a zero-length one (which it deletes).
 */
export const fileDeviceIdentityStore = (path: string): DeviceIdentityStore<DeviceIdentity> => ({
  load: async () => {
    try {
      return await readIdentityFile(path)
    } catch (error) {
      if (error instanceof EmptyIdentityFile) await unlink(path).catch(() => undefined)
      else if (!isMissing(error)) throw error
      return undefined
    }
  },
  generate: async () => exportDeviceIdentity(await generateWebCryptoIdentity({ extractable: true })),
  saveIfAbsent: async (identity) => {
    const stored: StoredDeviceIdentity = { v: 1, ...identity }
    // Exclusive: a racing writer that got there first wins, and its identity is the one.
    const written = await writePrivateFile(path, JSON.stringify(stored, null, 2) + "\n", "create")
    return written ? identity : readIdentityFile(path)
  }
})

/**
 * The `connect.proof` proof: base64url Ed25519 signature over
 * `proofTranscript({protocolRev, role, deviceId: identity.device_id, connectionId, challenge})`.
 *
 * @throws DeviceIdentityError when `identity.private_key` is not an Ed25519 PKCS#8 key.
 */
export const signProof = (identity: DeviceIdentity, fields: ProofFields): string =>
  sign(
    null,
    proofTranscript({
      protocolRev: fields.protocolRev ?? GATEWAY_PROTOCOL_REV,
      role: fields.role,
      deviceId: identity.device_id,
      connectionId: fields.connectionId,
      challenge: fields.challenge
    }),
    privateKeyOf(identity)
  ).toString("base64url")
