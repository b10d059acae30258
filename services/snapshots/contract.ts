/**
 * The snapshots subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { contract } from "../../src/subsystem/contract.ts"
import { SnapshotsApi } from "./transport/httpApi.ts"

/** The snapshots subsystem's contract. */
export const SnapshotsContract = contract({ name: "snapshots", http: [SnapshotsApi] })
