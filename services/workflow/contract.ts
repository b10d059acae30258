/**
 * The workflow subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { WorkflowApi } from "./transport/httpApi.ts"
import { WorkflowRun, WorkflowResume, WorkflowCancel } from "./transport/wsApi.ts"
import { WorkflowEvents } from "./events.ts"

/** The workflow subsystem's contract. */
export const WorkflowContract: Contract<"workflow", typeof WorkflowApi, typeof WorkflowRun | typeof WorkflowResume | typeof WorkflowCancel, (typeof WorkflowEvents)[number]> = contract({ name: "workflow", http: [WorkflowApi], ws: [WorkflowRun, WorkflowResume, WorkflowCancel], events: WorkflowEvents })
