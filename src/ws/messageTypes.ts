/**
 * The `type` label of `ws_messages_total` (docs/operations.md "Metrics"):
 * a declared type is its own label; anything a peer sends that is not
 * declared counts as `unknown`, so peers cannot grow the label set.
 */
import { UNKNOWN_TYPE } from "../../services/metrics/GatewayMetrics.ts"
import { WsInitiatedRequests } from "./api/initiated.ts"

/** Types of the requests the gateway sends (what a peer's response echoes). */
const INITIATED_TYPES: ReadonlySet<string> = new Set(WsInitiatedRequests.map((message) => message.type))

/** The metric labels of message types: one per declared type, every other type one label. */
export interface MessageTypeLabels {
  /** The label of a request type received from (or answered to) a peer. */
  readonly requestTypeLabel: (type: unknown) => string
  /** The label of a peer's response to a gateway-initiated request. */
  readonly responseTypeLabel: (type: unknown) => string
}

/** The labels over `declared` (every declared request type, handled or planned: WsDispatch's `declared`) and the handshake's. */
export const messageTypeLabels = (declared: Iterable<string>): MessageTypeLabels => {
  const requestTypes: ReadonlySet<string> = new Set([...declared, "connect", "connect.init", "connect.proof"])
  return {
    requestTypeLabel: (type) => typeof type === "string" && requestTypes.has(type) ? type : UNKNOWN_TYPE,
    responseTypeLabel: (type) => typeof type === "string" && INITIATED_TYPES.has(type) ? type : UNKNOWN_TYPE
  }
}
