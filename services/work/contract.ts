/**
 * The work board's contract (src/subsystem/Subsystem.ts): its WebSocket
 * request types and events — schemas only, what the clients load. No HTTP
 * endpoints.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { WorkMessages } from "./transport/wsApi.ts"
import { WorkEvents } from "./events.ts"

/** The work board's contract. */
export const WorkContract: Contract<"work", never, (typeof WorkMessages)[number], (typeof WorkEvents)[number]> = contract({ name: "work", ws: WorkMessages, events: WorkEvents })
