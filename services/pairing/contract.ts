/**
 * The pairing subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { PairingApi } from "./transport/httpApi.ts"
import { PairingApprove, PairingDeny, PairingRevoke } from "./transport/wsApi.ts"
import { PairingEvents } from "./events.ts"

/** The pairing subsystem's contract. */
export const PairingContract: Contract<"pairing", typeof PairingApi, typeof PairingApprove | typeof PairingDeny | typeof PairingRevoke, (typeof PairingEvents)[number]> = contract({ name: "pairing", http: [PairingApi], ws: [PairingApprove, PairingDeny, PairingRevoke], events: PairingEvents })
