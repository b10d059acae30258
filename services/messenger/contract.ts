/**
 * The messenger subsystem's contract (src/subsystem/Subsystem.ts): its HTTP
 * group and its events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { MessengerEvents } from "./events.ts"
import { MessengerApi } from "./transport/httpApi.ts"

/** The messenger subsystem's contract. */
export const MessengerContract: Contract<"messenger", typeof MessengerApi, never, (typeof MessengerEvents)[number]> = contract({
  name: "messenger",
  http: [MessengerApi],
  events: MessengerEvents
})
