/**
 * Client SDK of the gateway's WebSocket API for Node, for operator programs
 * (role `client`) and nodes (role `node`): the transport-independent core
 * (`GatewayClientCore.ts`) with the `ws` package as its socket factory and
 * identities in files. Plain TypeScript; no Effect runtime needed by callers.
 * Browsers and Deno import `svc-gateway/client/browser` (`browser.ts`,
 * docs/client.md).
 *
 * ```ts
 * import { GatewayClient, loadOrCreateDeviceIdentity } from "svc-gateway/src/client/index.ts"
 *
 * const identity = await loadOrCreateDeviceIdentity(`${home}/device.json`)
 * const client = new GatewayClient({ url: "http://127.0.0.1:8788", token, role: "client", identity })
 * client.onRequest("approval.request", (p) => ({ approved: false, reason: `declined ${p.approval_id}` }))
 * await client.connect()
 * for await (const event of client.events("presence.*")) console.log(event.type, event.payload)
 * ```
 *
 * Every export below carries its own documentation at its declaration.
 */

// Device identity: Ed25519 key pair, device_id, persistence (0600 JSON file), proof signing.
export {
  type DeviceIdentity,
  DeviceIdentityError,
  fileDeviceIdentityStore,
  generateDeviceIdentity,
  loadOrCreateDeviceIdentity,
  type ProofFields,
  signProof,
  type StoredDeviceIdentity,
  validateDeviceIdentity
} from "./identity.ts"

// Identity stores and WebCrypto identities (the same as in the browser build).
export {
  type ClientIdentity,
  type DeviceIdentityStore,
  exportDeviceIdentity,
  generateWebCryptoIdentity,
  loadOrCreateIdentity,
  memoryDeviceIdentityStore,
  signProofAsync,
  type WebCryptoDeviceIdentity,
  type WebCryptoKey
} from "./deviceKey.ts"

// The socket seam: the ws factory (default) and the WHATWG one (Node 22's global WebSocket, or any compatible constructor).
export { nodeSocketFactory } from "./nodeSocket.ts"
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

// The WebSocket client: handshake, requests, gateway-initiated requests, events, reconnect.
export {
  ADMIN_COOKIE_NAME,
  type ApprovalListPage,
  type ApprovalListPayload,
  type ApprovalRecord,
  type ApprovalRequestPayload,
  type ApprovalResolvePayload,
  type ApprovalResolveResult,
  type ConnectedInfo,
  connectGateway,
  connectWith,
  type DeviceInfo,
  type DisconnectedInfo,
  type EventFilter,
  FATAL_CLOSE_CODES,
  GatewayClient,
  GatewayClientCore,
  GatewayClientError,
  type GatewayClientErrorCode,
  type GatewayClientEventMap,
  type GatewayClientOptions,
  type GatewayClientState,
  type GatewayCredentials,
  type GatewayEventMap,
  type GatewayInitiatedRequestMap,
  type GatewayRequestHandler,
  GatewayRequestError,
  type GatewayRequestMap,
  type GatewaySession,
  type PairedInfo,
  type PairingApprovePayload,
  type PairingDenyPayload,
  type PairingRecord,
  type PairingResolveResult,
  type PairingRevokePayload,
  type ReconnectingInfo,
  type ReconnectOptions,
  type RequestArgs,
  type RequestOptions,
  type RequestResult,
  SCOPED_TOKEN_REFUSED_CLOSE_CODES,
  type TaskExecutePayload,
  toWebSocketUrl,
  type UnpairedInfo
} from "./GatewayClient.ts"

// Node mode: where a node keeps the scoped token of its pairing.
export {
  fileScopedTokenStore,
  memoryScopedTokenStore,
  type ScopedTokenStore,
  ScopedTokenStoreError,
  scopedTokenPathFor,
  type StoredScopedToken
} from "./scopedToken.ts"

// The typed HTTP client, derived from the API declaration (src/http/api/).
export { type GatewayHttpClientOptions, makeGatewayHttpClient } from "./http.ts"

// The demo node behind `svc-gateway node`.
export { DEMO_ECHO_CAPABILITY, type DemoNodeOptions, runDemoNode } from "./demoNode.ts"

// Wire contracts the SDK speaks (src/contracts/ws.ts, src/contracts/deviceIdentity.ts), re-exported for callers.
export * from "./wire.ts"
export { deviceIdFromPubkey, proofTranscript, verifyProof } from "../../services/ws-sessions/deviceIdentity.ts"
