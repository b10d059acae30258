/**
 * The transport-independent client core (src/client/GatewayClientCore.ts) as browsers and Deno use it: sockets
 * from a WHATWG `WebSocket` constructor (here the `ws` package's, which implements that interface), identities
 * made with WebCrypto and kept in memory or IndexedDB (a small in-memory IndexedDB stands in for a browser's).
 */
import { describe, expect, it } from "@effect/vitest"
import WebSocket from "ws"
import {
  GatewayClient as BrowserClient,
  GatewayClientError,
  indexedDbDeviceIdentityStore,
  loadOrCreateIdentity,
  memoryDeviceIdentityStore,
  type WebSocketConstructor,
  webSocketFactory
} from "../../src/client/browser.ts"
import { GatewayClient } from "../../src/client/GatewayClient.ts"
import { makeClient, rejectionOf, startFake } from "./support.ts"

const whatwg = webSocketFactory(WebSocket as unknown as WebSocketConstructor)

describe("the core over a WHATWG WebSocket", () => {
  it("defaults to subprotocol credentials, completes the handshake and makes requests", async () => {
    const token = "tok/with+chars=="
    const gateway = await startFake(token)
    const identity = await loadOrCreateIdentity(memoryDeviceIdentityStore())
    const client = new BrowserClient({ url: gateway.url, token, role: "client", identity, reconnect: false, socket: whatwg })
    try {
      const session = await client.connect()
      expect(session).toMatchObject({ role: "client", device_id: identity.device_id })
      expect(gateway.upgrades[0]).toMatchObject({ credential: "subprotocol", token, authorization: undefined, negotiated: "svc-v1" })
      expect(await client.request("ping")).toBeUndefined()
    } finally {
      await client.close()
    }
    expect(client.state).toBe("closed")
  })

  it("refuses header credentials it cannot send, naming the way out", () => {
    for (const credentials of ["bearer", "cookie"] as const) {
      expect(() =>
        new BrowserClient({ url: "http://127.0.0.1:1", token: "t", credentials, role: "client", identity: { device_id: "d", pubkey: "p", private_key: "k" }, socket: whatwg })
      ).toThrow(/need upgrade headers, which this WebSocket cannot send: use "subprotocol"/)
    }
  })

  it("a refused TCP connection: connection_closed 1006, not fatal", async () => {
    const gateway = await startFake()
    const url = gateway.url
    await gateway.close()
    const identity = await loadOrCreateIdentity(memoryDeviceIdentityStore())
    const client = new BrowserClient({ url, token: "t", role: "client", identity, reconnect: false, socket: whatwg })
    const error = (await rejectionOf(client.connect())) as GatewayClientError
    expect(error).toBeInstanceOf(GatewayClientError)
    expect(error).toMatchObject({ code: "connection_closed", closeCode: 1006, fatal: false })
    await client.close()
  })
})

describe("WebCrypto identities in Node's GatewayClient", () => {
  it("a non-extractable key signs the proof the gateway verifies", async () => {
    const gateway = await startFake()
    const identity = await loadOrCreateIdentity(memoryDeviceIdentityStore())
    expect(identity.privateKey.extractable).toBe(false)
    const client = makeClient(gateway, { identity })
    expect(client).toBeInstanceOf(GatewayClient)
    expect(await client.connect()).toMatchObject({ device_id: identity.device_id })
    // The fake gateway verifies the proof (close 4007 otherwise) with the gateway's own verifyProof.
    expect(gateway.peers[0]!.init.device).toMatchObject({ device_id: identity.device_id, pubkey: identity.pubkey })
  })
})

// ---------------------------------------------------------------------------
// A minimal in-memory IndexedDB (open, upgrade, get, add with ConstraintError)
// ---------------------------------------------------------------------------

interface FakeRequest<T> {
  result?: T
  error?: unknown
  onsuccess: (() => void) | null
  onerror: (() => void) | null
  onupgradeneeded?: (() => void) | null
}

const fakeIndexedDb = () => {
  const databases = new Map<string, Map<string, Map<string, unknown>>>()
  /** A request settled in a microtask (after the caller set its handlers), like IndexedDB's. */
  const request = <T>(run: () => T, before?: (req: FakeRequest<T>) => void): FakeRequest<T> => {
    const req: FakeRequest<T> = { onsuccess: null, onerror: null }
    queueMicrotask(() => {
      try {
        req.result = run()
        before?.(req)
        req.onsuccess?.()
      } catch (error) {
        req.error = error
        req.onerror?.()
      }
    })
    return req
  }
  return {
    open: (name: string) => {
      const isNew = !databases.has(name)
      const stores = databases.get(name) ?? new Map<string, Map<string, unknown>>()
      databases.set(name, stores)
      const storeOf = (store: string) => stores.get(store)!
      const db = {
        objectStoreNames: { contains: (store: string) => stores.has(store) },
        createObjectStore: (store: string) => stores.set(store, new Map()),
        transaction: (store: string) => ({
          objectStore: () => ({
            get: (key: string) => request(() => storeOf(store).get(key)),
            add: (value: unknown, key: string) =>
              request(() => {
                if (storeOf(store).has(key)) throw new Error("ConstraintError")
                storeOf(store).set(key, structuredClone(value))
              })
          })
        }),
        close: () => undefined
      }
      // A new database is upgraded before the open succeeds, like a browser's.
      return request(() => db, (req) => isNew && req.onupgradeneeded?.())
    }
  }
}

describe("indexedDbDeviceIdentityStore", () => {
  it("keeps one non-extractable identity per key; a second page load finds it; racing writers keep the first", async () => {
    const indexedDB = fakeIndexedDb()
    const store = indexedDbDeviceIdentityStore({ indexedDB })
    expect(await store.load()).toBeUndefined()
    const created = await loadOrCreateIdentity(store)
    expect(created.privateKey.extractable).toBe(false)
    const again = await loadOrCreateIdentity(indexedDbDeviceIdentityStore({ indexedDB }))
    expect(again).toMatchObject({ device_id: created.device_id, pubkey: created.pubkey })
    const other = indexedDbDeviceIdentityStore({ indexedDB, key: "second" })
    const [a, b] = await Promise.all([other.saveIfAbsent(await other.generate()), other.saveIfAbsent(await other.generate())])
    expect(b.device_id).toBe(a.device_id)
    expect(a.device_id).not.toBe(created.device_id)
  })

  it("rejects with DeviceIdentityError when IndexedDB is missing", async () => {
    await expect(indexedDbDeviceIdentityStore().load()).rejects.toThrow(/IndexedDB is not available here/)
  })
})
