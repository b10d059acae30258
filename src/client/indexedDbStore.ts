/**
 * A browser {@link DeviceIdentityStore} on IndexedDB: the identity is kept as a structured-cloned record
 * `{v: 1, device_id, pubkey, privateKey}` whose `privateKey` is a non-extractable WebCrypto `CryptoKey`, so
 * the private key never exists as bytes the page's scripts can read or send.
 */
import {
  DeviceIdentityError,
  type DeviceIdentityStore,
  generateWebCryptoIdentity,
  type WebCryptoDeviceIdentity
} from "./deviceKey.ts"

// The few IndexedDB shapes used here (the project compiles without the DOM typings).
interface IdbRequest<T> {
  result: T
  error: unknown
  onsuccess: (() => void) | null
  onerror: (() => void) | null
}
interface IdbOpenRequest extends IdbRequest<IdbDatabase> {
  onupgradeneeded: (() => void) | null
}
interface IdbObjectStore {
  get(key: string): IdbRequest<unknown>
  add(value: unknown, key: string): IdbRequest<unknown>
}
interface IdbTransaction {
  objectStore(name: string): IdbObjectStore
}
interface IdbDatabase {
  readonly objectStoreNames: { contains(name: string): boolean }
  createObjectStore(name: string): unknown
  transaction(store: string, mode: "readonly" | "readwrite"): IdbTransaction
  close(): void
}
interface IdbFactory {
  open(name: string, version?: number): IdbOpenRequest
}

/** Options of {@link indexedDbDeviceIdentityStore}. */
export interface IndexedDbDeviceIdentityOptions {
  /** Database name (default `svc-gateway`). */
  readonly database?: string
  /** Object store name (default `device-identity`). */
  readonly store?: string
  /** Key of the record (default `default`): one identity per key. */
  readonly key?: string
  /** The IndexedDB factory (default `globalThis.indexedDB`). */
  readonly indexedDB?: unknown
}

const settle = <T>(request: IdbRequest<T>, what: string): Promise<T> =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(new DeviceIdentityError(`IndexedDB ${what} failed`, { cause: request.error }))
  })

const isIdentityRecord = (value: unknown): value is WebCryptoDeviceIdentity & { readonly v: 1 } => {
  if (typeof value !== "object" || value === null) return false
  const record = value as Record<string, unknown>
  return record["v"] === 1 && typeof record["device_id"] === "string" && typeof record["pubkey"] === "string" &&
    typeof record["privateKey"] === "object" && record["privateKey"] !== null
}

/**
 * An identity store in IndexedDB (browsers; non-extractable Ed25519 keys from WebCrypto). `saveIfAbsent` uses
 * `add`, so two tabs racing keep the identity written first.
 *
 * @throws DeviceIdentityError (rejections) when IndexedDB is missing or fails, or the record is not an identity.
 */
export const indexedDbDeviceIdentityStore = (
  options: IndexedDbDeviceIdentityOptions = {}
): DeviceIdentityStore<WebCryptoDeviceIdentity> => {
  const database = options.database ?? "svc-gateway"
  const storeName = options.store ?? "device-identity"
  const key = options.key ?? "default"
  const withStore = async <T>(mode: "readonly" | "readwrite", use: (store: IdbObjectStore) => IdbRequest<T>, what: string) => {
    const factory = (options.indexedDB ?? (globalThis as { indexedDB?: unknown }).indexedDB) as IdbFactory | undefined
    if (factory === undefined) throw new DeviceIdentityError("IndexedDB is not available here")
    const open = factory.open(database, 1)
    open.onupgradeneeded = () => {
      if (!open.result.objectStoreNames.contains(storeName)) open.result.createObjectStore(storeName)
    }
    const db = await settle(open, `open ${database}`)
    try {
      return await settle(use(db.transaction(storeName, mode).objectStore(storeName)), what)
    } finally {
      db.close()
    }
  }
  const load = async (): Promise<WebCryptoDeviceIdentity | undefined> => {
    const record = await withStore("readonly", (store) => store.get(key), "read")
    if (record === undefined) return undefined
    if (!isIdentityRecord(record)) throw new DeviceIdentityError(`IndexedDB record ${storeName}/${key} is not a device identity (v 1)`)
    return { device_id: record.device_id, pubkey: record.pubkey, privateKey: record.privateKey }
  }
  return {
    load,
    generate: () => generateWebCryptoIdentity(),
    saveIfAbsent: async (identity) => {
      try {
        await withStore("readwrite", (store) => store.add({ v: 1, ...identity }, key), "write")
        return identity
      } catch (error) {
        // `add` fails with ConstraintError when another writer stored an identity first: that one wins.
        const stored = await load().catch(() => undefined)
        if (stored !== undefined) return stored
        throw error
      }
    }
  }
}
