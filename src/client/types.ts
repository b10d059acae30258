/**
 * Public shapes of the client SDK: options, session, listener payloads and
 * the typed request maps (gateway-api.md "WebSocket API").
 */
import type {
  CapabilityDescriptor,
  WsConnectProofResult,
  WsEventEnvelope,
  WsPeerRole,
  WsRequestEnvelope
} from "../../services/ws-sessions/schema.ts"
import type { DeclaredEventMap, GatewayInitiatedRequestMap, GatewayRequestMap } from "../app/contracts.ts"
import type { ClientIdentity } from "./deviceKey.ts"
import type { ScopedTokenStore } from "./scopedTokenStore.ts"
import type { GatewaySocketFactory } from "./socket.ts"

export type { GatewayInitiatedRequestMap, GatewayRequestMap } from "../app/contracts.ts"

// ---------------------------------------------------------------------------
// Options and public shapes
// ---------------------------------------------------------------------------

/**
 * How the token travels on the WebSocket upgrade (one per connection):
 * - `bearer`: `Authorization: Bearer <token>` header;
 * - `cookie`: `Cookie: svc_admin_token=<token>` plus `Origin` set to the URL's http(s) origin
 *   (the gateway accepts the cookie on same-origin upgrades only);
 * - `subprotocol`: `Sec-WebSocket-Protocol: svc-v1, svc-auth.<base64url(token)>`; the gateway must answer `svc-v1`;
 * - `session`: no token from the client: a browser page on the gateway's own origin that signed in with
 *   `POST /auth/session` lets the browser send its HttpOnly `svc_admin_token` cookie on the upgrade (the operator
 *   console does this, so script never holds the token). Only `svc-v1` is offered.
 */
export type GatewayCredentials = "bearer" | "cookie" | "subprotocol" | "session"

/** Reconnect policy. Delays in milliseconds. */
export interface ReconnectOptions {
  /**
   * Backoff cap of the first attempt (default 500 ms). Attempt n waits
   * `random() * min(maxDelayMs, initialDelayMs * 2^(n-1))` (full jitter).
   */
  readonly initialDelayMs?: number
  /** Upper bound of the backoff cap (default 30 000 ms). */
  readonly maxDelayMs?: number
  /** Consecutive failed attempts before giving up (default unlimited). */
  readonly maxAttempts?: number
}

/** Optional descriptive fields of `connect.init.device`. */
export interface DeviceInfo {
  readonly label?: string
  readonly platform?: string
  readonly version?: string
  readonly mode?: string
}

/** Options of {@link GatewayClient}. */
export interface GatewayClientOptions {
  /**
   * Gateway address: an http(s) or ws(s) base URL (`http://127.0.0.1:8788`, `/ws` is appended to its path)
   * or the full WebSocket URL ending in `/ws`. http becomes ws and https becomes wss.
   */
  readonly url: string
  /**
   * Admin token or device token. Never logged nor put in error messages. For a node this is the bootstrap
   * credential: it may be omitted when `scopedTokens` holds a scoped token for this device and gateway.
   */
  readonly token?: string
  /** Credential transport (default `bearer`; `subprotocol` with a socket factory that cannot send headers). */
  readonly credentials?: GatewayCredentials
  /** `client` (operator program) or `node` (capability provider). */
  readonly role: WsPeerRole
  /**
   * The device's key pair: a portable {@link DeviceIdentity}-shaped value (`loadOrCreateDeviceIdentity` in Node) or a
   * WebCrypto identity (`loadOrCreateIdentity(indexedDbDeviceIdentityStore())` in a browser).
   */
  readonly identity: ClientIdentity
  /**
   * How sockets are opened. Default: Node's `GatewayClient` uses the `ws` package (`nodeSocketFactory`); the
   * browser build uses `webSocketFactory()` over `globalThis.WebSocket`, which cannot send headers (credentials
   * then default to, and must be, `subprotocol`).
   */
  readonly socket?: GatewaySocketFactory
  /** Capabilities advertised in `connect.init` (default none). */
  readonly capabilities?: ReadonlyArray<CapabilityDescriptor>
  /** Descriptive device fields sent in `connect.init`. */
  readonly device?: DeviceInfo
  /** Default timeout of {@link GatewayClient.request}, in milliseconds (default 30 000). */
  readonly requestTimeoutMs?: number
  /** Time allowed from opening the socket to the `connect.proof` result, in milliseconds (default 15 000). */
  readonly handshakeTimeoutMs?: number
  /**
   * Reconnect policy after an established connection drops for a non-fatal reason
   * (default: enabled, with the defaults of {@link ReconnectOptions}); `false` disables it.
   */
  readonly reconnect?: false | ReconnectOptions
  /**
   * Node mode (role `node` only): where the scoped token of the node's pairing is kept (default: in memory, for
   * the life of the client; `runDemoNode` uses a file next to the identity). See {@link GatewayClientEventMap.paired}.
   */
  readonly scopedTokens?: ScopedTokenStore
}

/** Result of the handshake (`connect.proof` result): the gateway's client id, the device id and the role. */
export type GatewaySession = WsConnectProofResult

/** Payload of the `connected` listener: the session, and whether it replaces a dropped connection. */
export interface ConnectedInfo extends GatewaySession {
  readonly reconnected: boolean
  /** Whether this connection authenticated with the scoped token of the node's pairing (always false for clients). */
  readonly paired: boolean
}

/** Payload of the `paired` listener: the approved pairing (the scoped token is never exposed). */
export interface PairedInfo {
  readonly pairing: PairingRecord
  /** Whether the token reached the store (when not, the client still uses it until it is closed). */
  readonly stored: boolean
}

/** Payload of the `unpaired` listener: how the gateway refused the scoped token. */
export interface UnpairedInfo {
  /** Close code of the refusal: 4001 (`pairing revoked`, `unauthorized`) or 4008 (`scoped token mismatch`). */
  readonly closeCode: number | undefined
  readonly closeReason: string | undefined
  /** HTTP status of a refused upgrade (401). */
  readonly httpStatus: number | undefined
  /** Whether the client goes back to its bootstrap `token` (reconnecting as a pending node); `false`: it has none and stops. */
  readonly fallback: boolean
}

/** Payload of the `disconnected` listener, after an established connection closed. */
export interface DisconnectedInfo {
  /** WebSocket close code (1006 when the socket dropped without a close frame). */
  readonly code: number
  readonly reason: string
  /** A close code after which the client never reconnects (see {@link FATAL_CLOSE_CODES}). */
  readonly fatal: boolean
  /** Whether a reconnect is scheduled. */
  readonly willReconnect: boolean
}

/** Payload of the `reconnecting` listener: the 1-based attempt number and its delay in milliseconds. */
export interface ReconnectingInfo {
  readonly attempt: number
  readonly delayMs: number
}

/** Listener signatures of {@link GatewayClient.on}. */
export interface GatewayClientEventMap {
  /** An event envelope from the gateway. */
  readonly event: (event: WsEventEnvelope) => void
  /** A handshake completed (first connection or reconnection). */
  readonly connected: (info: ConnectedInfo) => void
  /** An established connection closed (also after {@link GatewayClient.close}). */
  readonly disconnected: (info: DisconnectedInfo) => void
  /** A reconnect attempt is scheduled. */
  readonly reconnecting: (info: ReconnectingInfo) => void
  /**
   * Node mode: `pairing.approved` arrived; the scoped token is stored and the client reconnects with it at once
   * (the `event` listeners see that event without its `scoped_token`).
   */
  readonly paired: (info: PairedInfo) => void
  /**
   * Node mode: the gateway refused the scoped token (upgrade 401, close 4001 or 4008, e.g. after a revocation);
   * it is forgotten (cleared from the store) and the client reconnects with its bootstrap `token`, if it has one.
   */
  readonly unpaired: (info: UnpairedInfo) => void
  /**
   * A reported problem that is not the answer of a request: a failed reconnect attempt, close code
   * 1013 (slow consumer) or 1009 (message too big), an unparsable message, a listener that threw.
   */
  readonly error: (error: Error) => void
}

/** Lifecycle state of a {@link GatewayClient}. */
export type GatewayClientState = "idle" | "connecting" | "connected" | "reconnecting" | "closed"

/** Per-request options. */
export interface RequestOptions {
  /** Overrides the client's `requestTimeoutMs` for this request, in milliseconds. */
  readonly timeoutMs?: number
}

/** `task.execute` payload (gateway → node; reference §5.3), as declared in src/ws/api/initiated.ts. */
export type TaskExecutePayload = GatewayInitiatedRequestMap["task.execute"]["payload"]

/** `approval.request` payload (gateway → client; reference §3.4), as declared in src/ws/api/initiated.ts. */
export type ApprovalRequestPayload = GatewayInitiatedRequestMap["approval.request"]["payload"]

/**
 * Payloads of the events the gateway sends, by event type (from every contract's event declarations, src/app/contracts.ts). `pairing.approved`
 * reaches listeners without its `scoped_token`: the SDK keeps the token to itself (node mode).
 */
export type GatewayEventMap = Omit<DeclaredEventMap, "pairing.approved"> & {
  readonly "pairing.approved": Omit<DeclaredEventMap["pairing.approved"], "scoped_token">
}

/** `approval.list` payload: filters, `limit` 1..500 and the `cursor` of the previous page. */
export type ApprovalListPayload = GatewayRequestMap["approval.list"]["payload"]

/** `approval.list` result: `{approvals, next_cursor?}`. */
export type ApprovalListPage = GatewayRequestMap["approval.list"]["result"]

/** `approval.resolve` payload: `{approval_id, decision, reason?, mode?, overrides?}`. */
export type ApprovalResolvePayload = GatewayRequestMap["approval.resolve"]["payload"]

/** `approval.resolve` result: `{approval, created_overrides?}`. */
export type ApprovalResolveResult = GatewayRequestMap["approval.resolve"]["result"]

/** The approval record, as `approval.*` results and events carry it. */
export type ApprovalRecord = GatewayEventMap["approval.requested"]["approval"]

/** `pairing.approve` payload: `{pairing_id, trust_level: "local" | "remote", capability_allowlist, reason?}`. */
export type PairingApprovePayload = GatewayRequestMap["pairing.approve"]["payload"]

/** `pairing.deny` payload: `{pairing_id, reason?}`. */
export type PairingDenyPayload = GatewayRequestMap["pairing.deny"]["payload"]

/** `pairing.revoke` payload: `{pairing_id, reason?}`. */
export type PairingRevokePayload = GatewayRequestMap["pairing.revoke"]["payload"]

/** `pairing.approve`, `pairing.deny` and `pairing.revoke` result: `{pairing}`. */
export type PairingResolveResult = GatewayRequestMap["pairing.approve"]["result"]

/** A pairing record (it never carries the scoped token), as `pairing.*` results and events carry it. */
export type PairingRecord = GatewayEventMap["pairing.requested"]["pairing"]

type KnownRequest = keyof GatewayRequestMap
type KnownInitiated = keyof GatewayInitiatedRequestMap

/**
 * Arguments after `type` of {@link GatewayClient.request}: a typed payload for
 * known types (optional when every field of it is); anything for others.
 */
export type RequestArgs<K extends string> = K extends KnownRequest
  ? {} extends GatewayRequestMap[K]["payload"]
    ? [payload?: GatewayRequestMap[K]["payload"], options?: RequestOptions]
    : [payload: GatewayRequestMap[K]["payload"], options?: RequestOptions]
  : [payload?: unknown, options?: RequestOptions]

/** Result of {@link GatewayClient.request}: the known result for known types, else `T`. */
export type RequestResult<K extends string, T> = K extends KnownRequest ? GatewayRequestMap[K]["result"] : T

/** Handler of a gateway-initiated request; its return value (awaited) becomes `result`, a throw becomes `ok:false`. */
export type GatewayRequestHandler<K extends string> = (
  payload: K extends KnownInitiated ? GatewayInitiatedRequestMap[K]["payload"] : unknown,
  envelope: WsRequestEnvelope
) => K extends KnownInitiated
  ? GatewayInitiatedRequestMap[K]["result"] | Promise<GatewayInitiatedRequestMap[K]["result"]>
  : unknown

/**
 * Which events {@link GatewayClient.events} yields: a type (`"presence.upserted"`), a prefix
 * pattern (`"work.*"`), `"*"`, a list of those, or a predicate.
 */
export type EventFilter = string | ReadonlyArray<string> | ((event: WsEventEnvelope) => boolean)

