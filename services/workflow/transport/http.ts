/**
 * Workflow handlers (src/http/api/workflow.ts): 404 `not_found` unless
 * `SVC_ENGINE_API_ENABLED=1`, then one call to `Workflow` each.
 */
import { WorkflowApi } from "./httpApi.ts"
import { Effect } from "effect"
import { GatewayConfig } from "../../../layers/config.ts"
import { CurrentPrincipal } from "../../auth/principal.ts"
import { NotFound } from "../../shared/errors.ts"
import { Workflow } from "../Workflow.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

/** Workflow handlers; need {@link Workflow}. */
export const WorkflowHttp = group(apiOf(WorkflowApi), "workflow", (handlers) => Effect.gen(function*() {
  const workflow = yield* Workflow
  const settings = yield* GatewayConfig
  const enabled = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    settings.engineApiEnabled
      ? effect
      : Effect.fail(new NotFound({ message: "the workflow engine API is disabled (SVC_ENGINE_API_ENABLED=1 enables it)" }))
  return handlers.handleAll({
    run: ({ payload }) => enabled(Effect.flatMap(CurrentPrincipal, (principal) => workflow.run(payload, principal))),
    resume: ({ payload }) => enabled(workflow.resume(payload.token)),
    cancel: ({ payload }) => enabled(workflow.cancel(payload.run_id, payload.reason)),
    list: ({ query }) => enabled(workflow.list(query)),
    get: ({ params }) => enabled(workflow.get(params.run_id))
  })
}))
