/**
 * The client SDK for browsers and Deno (`svc-gateway/client/browser`): the transport-independent WebSocket
 * client over the standard `WebSocket` and WebCrypto, device identities in IndexedDB or memory, and the typed
 * HTTP client (over `fetch`). Imports no Node built-in (test/client/browser-bundle.test.ts bundles it with
 * `platform: "browser"` and runs a handshake from the bundle in Deno). docs/client.md "In a browser".
 *
 * ```ts
 * import { GatewayClient, indexedDbDeviceIdentityStore, loadOrCreateIdentity } from "svc-gateway/client/browser"
 *
 * const identity = await loadOrCreateIdentity(indexedDbDeviceIdentityStore())
 * const client = new GatewayClient({ url: location.origin, token, role: "client", identity })
 * await client.connect() // credentials: "subprotocol" (a browser cannot set upgrade headers)
 * console.log(await client.request("presence.beacon", { host: "console", mode: "ui" }))
 * ```
 *
 * Every export carries its own documentation at its declaration.
 */

import { connectWith, GatewayClientCore } from "./GatewayClientCore.ts"
import type { GatewayClientOptions } from "./types.ts"

// The WebSocket client: the core under the same name as Node's class, and its socket seam.
export { connectWith, GatewayClientCore as GatewayClient, GatewayClientCore } from "./GatewayClientCore.ts"
export {
  type GatewaySocket,
  type GatewaySocketFactory,
  type SocketCloseInfo,
  type SocketListeners,
  type SocketOpenRequest,
  type WebSocketConstructor,
  webSocketFactory,
  type WhatwgWebSocket
} from "./socket.ts"
export * from "./errors.ts"
export { toWebSocketUrl } from "./transport.ts"
export type * from "./types.ts"

/**
 * Creates a client (sockets from `globalThis.WebSocket` unless `options.socket` says otherwise) and connects it.
 *
 * @throws the errors of `GatewayClient.connect` (the client is closed first).
 */
export const connectGateway = (options: GatewayClientOptions): Promise<GatewayClientCore> =>
  connectWith(new GatewayClientCore(options))

// Device identity through WebCrypto; stores in IndexedDB and memory.
export {
  type ClientIdentity,
  deriveDeviceId,
  type DeviceIdentity,
  DeviceIdentityError,
  type DeviceIdentityStore,
  exportDeviceIdentity,
  generateWebCryptoIdentity,
  loadOrCreateIdentity,
  memoryDeviceIdentityStore,
  type ProofFields,
  proofTranscriptBytes,
  signProofAsync,
  type StoredDeviceIdentity,
  type WebCryptoDeviceIdentity,
  type WebCryptoKey
} from "./deviceKey.ts"
export { type IndexedDbDeviceIdentityOptions, indexedDbDeviceIdentityStore } from "./indexedDbStore.ts"

// Node mode in a browser: the scoped token in memory (or a store of the caller's).
export { memoryScopedTokenStore, type ScopedTokenStore, type StoredScopedToken } from "./scopedTokenStore.ts"

// The typed HTTP client, derived from the API declaration (src/http/api/); give it `FetchHttpClient.layer`.
export { type GatewayHttpClientOptions, makeGatewayHttpClient } from "./http.ts"

// Wire contracts the SDK speaks.
export * from "./wire.ts"
