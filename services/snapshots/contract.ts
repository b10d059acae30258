/**
 * The snapshots subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { SnapshotsApi } from "./transport/httpApi.ts"

/** The snapshots subsystem's contract. */
export const SnapshotsContract: Contract<"snapshots", typeof SnapshotsApi, never, never> = contract({ name: "snapshots", http: [SnapshotsApi] })
