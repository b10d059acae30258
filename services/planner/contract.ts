/**
 * The planner subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { PlanApi } from "./transport/httpApi.ts"

/** The planner subsystem's contract. */
export const PlannerContract: Contract<"planner", typeof PlanApi, never, never> = contract({ name: "planner", http: [PlanApi] })
