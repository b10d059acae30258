/**
 * Device identity of the client SDK (reference §5.2): an Ed25519 key pair
 * whose public key (base64url DER SPKI) names the device through
 * `device_id = deviceIdFromPubkey(pubkey)`, and which signs the
 * `connect.proof` transcript of the WebSocket handshake v2.
 *
 * Derivation, transcript and verification live in
 * `src/contracts/deviceIdentity.ts`; this module only creates, stores and
 * signs.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto"
import { readFile, stat, unlink } from "node:fs/promises"
import { tightenPrivateFile, writePrivateFile } from "../../services/shared/privateFile.ts"
import { deviceIdFromPubkey, proofTranscript } from "../../services/ws-sessions/deviceIdentity.ts"
import { GATEWAY_PROTOCOL_REV, type WsPeerRole } from "../../services/ws-sessions/schema.ts"

/**
 * A device's Ed25519 identity.
 *
 * - `device_id`: `dev_` + 52 lowercase base32 characters, derived from `pubkey`;
 * - `pubkey`: base64url of the DER SPKI public key (sent in `connect.init`);
 * - `private_key`: base64url of the DER PKCS#8 private key. Secret: never send or log it.
 */
export interface DeviceIdentity {
  readonly device_id: string
  readonly pubkey: string
  readonly private_key: string
}

/** The JSON stored by {@link loadOrCreateDeviceIdentity}: a {@link DeviceIdentity} tagged with format version 1. */
export interface StoredDeviceIdentity extends DeviceIdentity {
  readonly v: 1
}

/**
 * A device identity file or value that cannot be used: unreadable, not JSON,
 * of an unknown version, with malformed keys, a private key that does not
 * belong to the public key, or a `device_id` not derived from the public key.
 * `path` is set when the problem is in a file. The message never contains key
 * material.
 */
export class DeviceIdentityError extends Error {
  override readonly name = "DeviceIdentityError"
  readonly path: string | undefined

  constructor(message: string, options?: { readonly path?: string | undefined; readonly cause?: unknown }) {
    super(options?.path === undefined ? message : `device identity file ${options.path}: ${message}`, {
      cause: options?.cause
    })
    this.path = options?.path
  }
}

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
export const loadOrCreateDeviceIdentity = async (path: string): Promise<DeviceIdentity> => {
  try {
    return await readIdentityFile(path)
  } catch (error) {
    if (error instanceof EmptyIdentityFile) await unlink(path).catch(() => undefined)
    else if (!isMissing(error)) throw error
  }
  const identity = generateDeviceIdentity()
  const stored: StoredDeviceIdentity = { v: 1, ...identity }
  // Exclusive: a racing writer that got there first wins, and its identity is the one.
  const written = await writePrivateFile(path, JSON.stringify(stored, null, 2) + "\n", "create")
  return written ? identity : readIdentityFile(path)
}

/** What `connect.proof` signs besides the device: the handshake's role, connection id and challenge. */
export interface ProofFields {
  readonly role: WsPeerRole
  /** `connection_id` from the `connect.init` result. */
  readonly connectionId: string
  /** `challenge` (base64url) from the `connect.init` result. */
  readonly challenge: string
  /** Defaults to {@link GATEWAY_PROTOCOL_REV} (2). */
  readonly protocolRev?: number
}

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
