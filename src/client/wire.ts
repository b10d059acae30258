/**
 * The wire contracts the SDK speaks (the WebSocket envelopes, close codes,
 * protocol revision and subprotocol, capability and presence records),
 * re-exported by both entries of `svc-gateway/client` (index.ts for Node,
 * browser.ts for browsers and Deno). Schemas only.
 *
 * @module
 */
export {
  type CapabilityDescriptor,
  GATEWAY_PROTOCOL_REV,
  type PresenceEntry,
  WS_SUBPROTOCOL,
  WsCloseCode,
  type WsEventEnvelope,
  type WsPeerRole,
  type WsRequestEnvelope,
  type WsResponseEnvelope
} from "../../services/ws-sessions/schema.ts"
