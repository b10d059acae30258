/** Errors of gateway-initiated requests (`Backplane.request`, `GatewayRequests.request`). */
import { Schema } from "effect"

/** The target connection is not connected to this gateway. */
export class PeerNotConnected extends Schema.TaggedError<PeerNotConnected>()("PeerNotConnected", {
  connectionId: Schema.String,
  message: Schema.String
}) {}

/** The peer did not answer within the timeout. */
export class PeerRequestTimeout extends Schema.TaggedError<PeerRequestTimeout>()("PeerRequestTimeout", {
  connectionId: Schema.String,
  requestId: Schema.String,
  message: Schema.String
}) {}

/** The connection closed before the peer answered. */
export class PeerDisconnected extends Schema.TaggedError<PeerDisconnected>()("PeerDisconnected", {
  connectionId: Schema.String,
  requestId: Schema.String,
  message: Schema.String
}) {}

/** The peer answered `ok:false`; `code`, `message` and `details` are the peer's. */
export class PeerRequestFailed extends Schema.TaggedError<PeerRequestFailed>()("PeerRequestFailed", {
  connectionId: Schema.String,
  requestId: Schema.String,
  code: Schema.String,
  message: Schema.String,
  details: Schema.optional(Schema.Unknown)
}) {}

/** Any failure of a gateway-initiated request. */
export type PeerRequestError = PeerNotConnected | PeerRequestTimeout | PeerDisconnected | PeerRequestFailed
