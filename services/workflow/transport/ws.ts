/** Handlers of `workflow.run`, `workflow.resume`, `workflow.cancel` (src/ws/api/workflow.ts): one call to `Workflow` each. */
import { Effect } from "effect"
import { Workflow } from "../Workflow.ts"
import { WorkflowCancel, WorkflowResume, WorkflowRun } from "./wsApi.ts"
import { handlers } from "../../../src/ws/dispatch.ts"

/** Workflow handlers; need {@link Workflow}. */
export const WorkflowWs = handlers(
  [WorkflowRun, WorkflowResume, WorkflowCancel],
  Effect.gen(function*() {
    const workflow = yield* Workflow
    return {
      "workflow.run": (request, connection) => workflow.run(request, connection.principal),
      "workflow.resume": ({ token }) => workflow.resume(token),
      "workflow.cancel": ({ run_id, reason }) => workflow.cancel(run_id, reason)
    }
  })
)
