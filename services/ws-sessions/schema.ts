/**
 * Wire schemas of the WebSocket API (gateway-api.md "WebSocket API",
 * "Events"; reference §5). One source for the gateway, the client SDK and
 * the JSON Schema catalog.
 */
import { Effect, Schema } from "effect"
import { DeviceRole } from "../auth/schema.ts"
import { bounded, LARGE_JSON, SMALL_JSON } from "../shared/json.ts"

/** The gateway's protocol revision: `connect.init.protocol_rev` must equal it (gateway-api.md "Versioning"). */
export const GATEWAY_PROTOCOL_REV = 2

/** Subprotocol negotiated by the gateway (never an `svc-auth.*` entry). */
export const WS_SUBPROTOCOL = "svc-v1"

/** Prefix of the credential-bearing subprotocol: `svc-auth.<base64url(token)>`. */
export const WS_AUTH_SUBPROTOCOL_PREFIX = "svc-auth."

/**
 * WebSocket close codes (reference §5.2; docs/websocket.md).
 * 1009 and 1013 are the standard "message too big" and "try again later".
 */
export const WsCloseCode = {
  /**
   * Bad or missing credentials, or a device token bound to another role/device; also the node's pairing was
   * revoked (`pairing revoked`) or denied (`pairing denied`): every live connection of that node is closed.
   */
  unauthorized: 4001,
  /** `connect.proof` not completed within the handshake timeout (10 s default). */
  handshakeTimeout: 4002,
  /** Invalid JSON before the handshake, anything but `connect.init` first, connection_id mismatch, legacy `connect`. */
  protocolViolation: 4003,
  /** `protocol_rev` differs from {@link GATEWAY_PROTOCOL_REV}. */
  protocolRevMismatch: 4005,
  /** `device.device_id` is not derived from `device.pubkey`. */
  deviceIdMismatch: 4006,
  /** The Ed25519 proof does not verify. */
  invalidProof: 4007,
  /** A scoped node token used by another device than its paired node, or by a `client` peer (docs/pairing.md). */
  scopedTokenMismatch: 4008,
  /** A message above the size limit (1 MiB default). */
  messageTooBig: 1009,
  /** The peer does not read fast enough: its outbound mailbox overflowed. */
  slowConsumer: 1013,
  /** A defect in the gateway while serving this connection (logged with the connection id); reconnecting is safe. */
  internalError: 1011,
  /** The gateway is shutting down. */
  goingAway: 1001
} as const

/** A string of at most `max` characters (every string a peer sends is bounded: it may be logged or stored). */
const text = (max: number) => Schema.String.check(Schema.isMaxLength(max, { expected: `at most ${max} characters` }))

/** A non-empty string of at most `max` characters. */
const nonEmptyText = (max: number) =>
  Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(max, { expected: `at most ${max} characters` }))

/** Longest `request_id` and message `type`, in characters. */
export const MAX_ENVELOPE_ID_LENGTH = 128

/** Most capabilities one peer may advertise or declare ready. */
export const MAX_CAPABILITIES = 64

/** `client` (operator program) or `node` (capability provider): the device role of the auth subsystem. */
export const WsPeerRole = DeviceRole
export type WsPeerRole = DeviceRole

/** A namespaced capability (`cli.exec`, `desktop.screenshot`) with a version (default "1.0.0"). */
export const CapabilityDescriptor = Schema.Struct({
  id: Schema.String.check(Schema.isMaxLength(128, { expected: "at most 128 characters" }), Schema.isPattern(/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/)).annotate({
    description: "Namespaced capability id, e.g. cli.exec.",
    expected: "a namespaced id like cli.exec"
  }),
  version: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(64, { expected: "at most 64 characters" }), Schema.isPattern(/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/)).annotate({
    expected: "a semantic version like 1.0.0"
  }))
}).annotate({ identifier: "CapabilityDescriptor" })
export type CapabilityDescriptor = typeof CapabilityDescriptor.Type

/** Request envelope `{request_id, type, payload}`. */
export const WsRequestEnvelope = Schema.Struct({
  request_id: nonEmptyText(MAX_ENVELOPE_ID_LENGTH),
  type: nonEmptyText(MAX_ENVELOPE_ID_LENGTH),
  payload: Schema.optionalKey(Schema.Unknown)
}).annotate({ identifier: "WsRequestEnvelope" })
export type WsRequestEnvelope = typeof WsRequestEnvelope.Type

/** Error of a failed response: `{code, message, details?}`. */
export const WsError = Schema.Struct({
  code: text(128),
  message: text(4096),
  details: Schema.optionalKey(bounded(Schema.Unknown, LARGE_JSON))
})
export type WsError = typeof WsError.Type

/** Response envelope `{request_id, type, ok, result?, error?}`. */
export const WsResponseEnvelope = Schema.Struct({
  request_id: nonEmptyText(MAX_ENVELOPE_ID_LENGTH),
  type: text(MAX_ENVELOPE_ID_LENGTH),
  ok: Schema.Boolean,
  result: Schema.optionalKey(bounded(Schema.Unknown, LARGE_JSON)),
  error: Schema.optionalKey(WsError)
}).annotate({ identifier: "WsResponseEnvelope" })
export type WsResponseEnvelope = typeof WsResponseEnvelope.Type

/** Event envelope `{event_id, type, occurred_at, payload, scope?}`. Only the gateway sends events. */
export const WsEventEnvelope = Schema.Struct({
  event_id: Schema.String,
  type: Schema.String,
  occurred_at: Schema.String,
  payload: Schema.Unknown,
  scope: Schema.optionalKey(Schema.Unknown)
}).annotate({ identifier: "WsEventEnvelope" })
export type WsEventEnvelope = typeof WsEventEnvelope.Type

/** `connect.init` payload: the device's identity and advertised capabilities. */
export const WsConnectInitRequest = Schema.Struct({
  protocol_rev: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  role: WsPeerRole,
  device: Schema.Struct({
    device_id: nonEmptyText(128),
    pubkey: nonEmptyText(256).annotate({ description: "base64url DER SPKI Ed25519 public key" }),
    label: Schema.optionalKey(text(128)),
    platform: Schema.optionalKey(text(64)),
    version: Schema.optionalKey(text(64)),
    mode: Schema.optionalKey(text(64))
  }),
  capabilities: Schema.Array(CapabilityDescriptor).check(
    Schema.isMaxLength(MAX_CAPABILITIES, { expected: `at most ${MAX_CAPABILITIES} capabilities` })
  ).pipe(Schema.withDecodingDefaultKey(Effect.succeed([])))
}).annotate({ identifier: "WsConnectInitRequest" })
export type WsConnectInitRequest = typeof WsConnectInitRequest.Type

/** `connect.init` result. `challenge` is base64url of 32 random bytes. */
export const WsConnectInitResult = Schema.Struct({
  connection_id: Schema.String,
  challenge: Schema.String
}).annotate({ identifier: "WsConnectInitResult" })
export type WsConnectInitResult = typeof WsConnectInitResult.Type

/** `connect.proof` payload: an Ed25519 signature (base64url) over the transcript. */
export const WsConnectProofRequest = Schema.Struct({
  connection_id: nonEmptyText(64),
  proof: nonEmptyText(256)
}).annotate({ identifier: "WsConnectProofRequest" })
export type WsConnectProofRequest = typeof WsConnectProofRequest.Type

/** `connect.proof` result: the gateway's client id (= connection id), the proven device id and the role. */
export const WsConnectProofResult = Schema.Struct({
  client_id: Schema.String,
  device_id: Schema.String,
  role: WsPeerRole
}).annotate({ identifier: "WsConnectProofResult" })
export type WsConnectProofResult = typeof WsConnectProofResult.Type

/**
 * `presence.beacon` payload (reference §5.3). Every field is bounded, so an
 * entry can always be served back by `GET /presence`: `host` ≤ 255
 * characters, `ip` and `version` ≤ 64, `metadata` an object nested at most 8
 * deep, at most 8 KiB of JSON and 256 keys and items ({@link SMALL_JSON}).
 */
export const WsPresenceBeaconRequest = Schema.Struct({
  host: Schema.optionalKey(text(255)),
  ip: Schema.optionalKey(text(64)),
  version: Schema.optionalKey(text(64)),
  mode: Schema.optionalKey(Schema.Literals(["ui", "web", "cli", "node", "backend", "probe", "test"])),
  last_input_seconds: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  metadata: Schema.optionalKey(bounded(Schema.Record(Schema.String, Schema.Unknown), SMALL_JSON))
}).annotate({ identifier: "WsPresenceBeaconRequest" })
export type WsPresenceBeaconRequest = typeof WsPresenceBeaconRequest.Type

/** A presence entry, as in `GET /presence` and the `presence.upserted` event (reference §7.8). */
export const PresenceEntry = Schema.Struct({
  instance_id: Schema.String.annotate({ description: "The device id of a peer, or the gateway instance id for `self`." }),
  role: Schema.Literals(["gateway", "client", "node"]),
  host: Schema.optionalKey(Schema.String),
  ip: Schema.optionalKey(Schema.String),
  version: Schema.optionalKey(Schema.String),
  mode: Schema.optionalKey(Schema.String),
  last_input_seconds: Schema.optionalKey(Schema.Number),
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  connected_at: Schema.optionalKey(Schema.String),
  last_seen_at: Schema.String,
  expires_at: Schema.optionalKey(Schema.String),
  reason: Schema.Literals(["self", "connect", "periodic"]),
  gateway_instance_id: Schema.optionalKey(Schema.String).annotate({
    description: "The gateway instance holding the entry (where the device is connected or beaconed; a gateway's own id for a gateway)."
  })
}).annotate({ identifier: "PresenceEntry" })
export type PresenceEntry = typeof PresenceEntry.Type

/** `presence.beacon` result: the stored entry. */
export const WsPresenceBeaconResult = Schema.Struct({ entry: PresenceEntry }).annotate({ identifier: "WsPresenceBeaconResult" })
export type WsPresenceBeaconResult = typeof WsPresenceBeaconResult.Type
