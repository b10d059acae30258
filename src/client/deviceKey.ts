/**
 * Device identity of the client SDK without Node built-ins (reference §5.2; docs/pairing.md "Device proof"):
 * Ed25519 through WebCrypto (`globalThis.crypto.subtle`: Node 20+, Deno, browsers).
 *
 * - `pubkey` is base64url of the DER SPKI public key; `device_id = "dev_" + base32(sha256(DER))`;
 * - the proof of `connect.proof` is an Ed25519 signature over {@link proofTranscriptBytes}, the bytes the
 *   gateway verifies (services/ws-sessions/deviceIdentity.ts `proofTranscript`; a test keeps the two equal).
 *
 * An identity is either the portable {@link DeviceIdentity} (PKCS#8 private key as base64url text, what the
 * Node file store keeps) or a {@link WebCryptoDeviceIdentity} holding a `CryptoKey` (non-extractable in the
 * IndexedDB and memory stores of a browser). Where identities live is a {@link DeviceIdentityStore}.
 */
import { GATEWAY_PROTOCOL_REV, type WsPeerRole } from "../../services/ws-sessions/schema.ts"
import { deviceIdOfDigest, proofTranscriptBytes as transcriptBytes } from "../../services/ws-sessions/proofTranscript.ts"
import { base64UrlDecode, base64UrlEncode } from "./encoding.ts"

/** WebCrypto's `CryptoKey` (named from `crypto.subtle` so no DOM or Node typings are needed). */
export type WebCryptoKey = Parameters<typeof globalThis.crypto.subtle.sign>[1]

/**
 * A device's Ed25519 identity in portable form.
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

/** The JSON the Node file store keeps: a {@link DeviceIdentity} tagged with format version 1. */
export interface StoredDeviceIdentity extends DeviceIdentity {
  readonly v: 1
}

/** A device identity whose private key is a WebCrypto `CryptoKey` (usually non-extractable: it never leaves the store). */
export interface WebCryptoDeviceIdentity {
  readonly device_id: string
  readonly pubkey: string
  readonly privateKey: WebCryptoKey
}

/** What `GatewayClient` signs with: either form of identity. */
export type ClientIdentity = DeviceIdentity | WebCryptoDeviceIdentity

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

const ED25519 = { name: "Ed25519" } as const

const subtle = () => {
  const value = globalThis.crypto?.subtle
  if (value === undefined) throw new DeviceIdentityError("WebCrypto (crypto.subtle) is not available here (a browser needs a secure context)")
  return value
}

/** `device_id` of DER SPKI public key bytes: `dev_` + base32(sha256(der)). */
export const deriveDeviceId = async (spkiDer: Uint8Array<ArrayBuffer>): Promise<string> =>
  deviceIdOfDigest(new Uint8Array(await subtle().digest("SHA-256", spkiDer)))

/** The fields of the `connect.proof` transcript. */
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
 * The exact bytes a device signs in `connect.proof`: UTF-8 of six lines each ending in `\n`:
 * `svc-connect-proof`, `protocol_rev=<n>`, `role=<role>`, `device_id=<id>`, `connection_id=<id>`, `challenge=<c>`.
 */
export const proofTranscriptBytes = (deviceId: string, fields: ProofFields): Uint8Array<ArrayBuffer> =>
  transcriptBytes({ ...fields, deviceId, protocolRev: fields.protocolRev ?? GATEWAY_PROTOCOL_REV })

const importedKeys = new WeakMap<DeviceIdentity, Promise<WebCryptoKey>>()

/**
 * The signing key of `identity`: its `CryptoKey`, or its PKCS#8 `private_key` imported once (non-extractable).
 *
 * @throws DeviceIdentityError when `private_key` is not an Ed25519 PKCS#8 key (without key material).
 */
export const signingKeyOf = (identity: ClientIdentity): Promise<WebCryptoKey> => {
  if ("privateKey" in identity) return Promise.resolve(identity.privateKey)
  let key = importedKeys.get(identity)
  if (key === undefined) {
    key = (async () => {
      try {
        return await subtle().importKey("pkcs8", base64UrlDecode(identity.private_key), ED25519, false, ["sign"])
      } catch (cause) {
        throw new DeviceIdentityError("private_key is not a base64url DER PKCS#8 key", { cause })
      }
    })()
    importedKeys.set(identity, key)
  }
  return key
}

/**
 * The `connect.proof` proof of `identity` (base64url Ed25519 signature over {@link proofTranscriptBytes}), through WebCrypto.
 *
 * @throws DeviceIdentityError when the private key is not a usable Ed25519 key.
 */
export const signProofAsync = async (identity: ClientIdentity, fields: ProofFields): Promise<string> => {
  const key = await signingKeyOf(identity)
  const signature = await subtle().sign(ED25519, key, proofTranscriptBytes(identity.device_id, fields))
  return base64UrlEncode(new Uint8Array(signature))
}

/**
 * A fresh Ed25519 identity made with WebCrypto. `extractable: false` (the default) keeps the private key
 * inside the `CryptoKey` (a browser store keeps that object); `extractable: true` is needed to
 * {@link exportDeviceIdentity} it.
 */
export const generateWebCryptoIdentity = async (options?: { readonly extractable?: boolean }): Promise<WebCryptoDeviceIdentity> => {
  const pair = (await subtle().generateKey(ED25519, options?.extractable ?? false, ["sign", "verify"])) as {
    readonly publicKey: WebCryptoKey
    readonly privateKey: WebCryptoKey
  }
  const spki = new Uint8Array(await subtle().exportKey("spki", pair.publicKey))
  return { device_id: await deriveDeviceId(spki), pubkey: base64UrlEncode(spki), privateKey: pair.privateKey }
}

/**
 * The portable form of an extractable WebCrypto identity (PKCS#8 `private_key`).
 *
 * @throws DeviceIdentityError when the key is not extractable.
 */
export const exportDeviceIdentity = async (identity: WebCryptoDeviceIdentity): Promise<DeviceIdentity> => {
  try {
    const pkcs8 = new Uint8Array(await subtle().exportKey("pkcs8", identity.privateKey))
    return { device_id: identity.device_id, pubkey: identity.pubkey, private_key: base64UrlEncode(pkcs8) }
  } catch (cause) {
    throw new DeviceIdentityError("the private key is not extractable", { cause })
  }
}

// ---------------------------------------------------------------------------
// Stores
// ---------------------------------------------------------------------------

/**
 * Where a device identity lives (file in Node, IndexedDB in a browser, memory anywhere). Errors never carry
 * key material.
 */
export interface DeviceIdentityStore<I extends ClientIdentity = ClientIdentity> {
  /** The stored identity, `undefined` when there is none. */
  readonly load: () => Promise<I | undefined>
  /** Makes a new identity of the form this store keeps (not yet stored). */
  readonly generate: () => Promise<I>
  /**
   * Stores `identity` unless one is stored already, and resolves with the stored one: when two writers race,
   * both end up with the identity written first.
   */
  readonly saveIfAbsent: (identity: I) => Promise<I>
}

/** The stored identity of `store`, or a new one generated and stored (the first writer wins a race). */
export const loadOrCreateIdentity = async <I extends ClientIdentity>(store: DeviceIdentityStore<I>): Promise<I> =>
  (await store.load()) ?? (await store.saveIfAbsent(await store.generate()))

/** An identity store in memory (non-extractable WebCrypto keys): the identity lives as long as the store object. */
export const memoryDeviceIdentityStore = (initial?: WebCryptoDeviceIdentity): DeviceIdentityStore<WebCryptoDeviceIdentity> => {
  let current = initial
  return {
    load: () => Promise.resolve(current),
    generate: () => generateWebCryptoIdentity(),
    saveIfAbsent: (identity) => Promise.resolve((current ??= identity))
  }
}
