/** Errors of gateway-initiated requests: declared with the {@link Backplane} that delivers them (services/backplane/errors.ts). */
export {
  PeerDisconnected,
  PeerNotConnected,
  PeerRequestFailed,
  type PeerRequestError,
  PeerRequestTimeout
} from "../backplane/errors.ts"
