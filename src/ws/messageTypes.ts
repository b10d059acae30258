/**
 * The `type` label of `ws_messages_total` (docs/operations.md "Metrics"):
 * a declared type is its own label; anything a peer sends that is not
 * declared counts as `unknown`, so peers cannot grow the label set.
 */
import { UNKNOWN_TYPE } from "../../services/metrics/GatewayMetrics.ts"
import { PlannedWsMessages, WsInitiatedRequests, WsMessages } from "./api/index.ts"

/** Request types peers may send: the declared ones and the handshake's. */
const REQUEST_TYPES: ReadonlySet<string> = new Set([
  ...[...WsMessages, ...PlannedWsMessages].map((message) => message.type),
  "connect",
  "connect.init",
  "connect.proof"
])

/** Types of the requests the gateway sends (what a peer's response echoes). */
const INITIATED_TYPES: ReadonlySet<string> = new Set(WsInitiatedRequests.map((message) => message.type))

/** The label of a request type received from (or answered to) a peer. */
export const requestTypeLabel = (type: unknown): string =>
  typeof type === "string" && REQUEST_TYPES.has(type) ? type : UNKNOWN_TYPE

/** The label of a peer's response to a gateway-initiated request. */
export const responseTypeLabel = (type: unknown): string =>
  typeof type === "string" && INITIATED_TYPES.has(type) ? type : UNKNOWN_TYPE
