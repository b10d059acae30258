/**
 * Playbook handlers (src/http/api/playbooks.ts): one call to `Playbooks`
 * each (`Workflow.resume` for the runtime's resume). Execution and the
 * runtime check `SVC_ENGINE_API_ENABLED` first.
 */
import { PlaybooksApi } from "./httpApi.ts"
import { Effect } from "effect"
import { GatewayConfig } from "../../../layers/config.ts"
import { Playbooks } from "../Playbooks.ts"
import {
  type PlaybookExecuteRequest,
  type PlaybookRuntimeRequest,
  type PlaybookRuntimeResponse
} from "../schema.ts"
import { InvalidRequest, type NotFound } from "../../shared/errors.ts"
import { Workflow } from "../../workflow/Workflow.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

/** The answer when the engine is off (gateway-api.md "Playbooks": 400 unsupported). */
export const ENGINE_DISABLED_MESSAGE = "unsupported: the workflow engine is not enabled (SVC_ENGINE_API_ENABLED=1)"

type PlaybookRuntimeRun = Extract<PlaybookRuntimeRequest, { readonly action: "run" }>

/** The execute fields of a runtime `run` request. */
const requestOf = ({ action: _action, playbook_id: _id, ...request }: PlaybookRuntimeRun): PlaybookExecuteRequest => request

/** Playbook handlers; need {@link Playbooks}, {@link Workflow} and `GatewayConfig`. */
export const PlaybooksHttp = group(apiOf(PlaybooksApi), "playbooks", (handlers) => Effect.gen(function*() {
  const playbooks = yield* Playbooks
  const workflow = yield* Workflow
  const settings = yield* GatewayConfig
  const engine = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    settings.engineApiEnabled ? effect : Effect.fail(new InvalidRequest({ message: ENGINE_DISABLED_MESSAGE }))
  return handlers.handleAll({
    list: () => playbooks.list,
    get: ({ params }) => playbooks.get(params.id),
    run: ({ params }) => playbooks.dryRun(params.id),
    execute: ({ params, payload }) => engine(playbooks.execute(params.id, payload)),
    runtime: ({ payload }) =>
      engine<PlaybookRuntimeResponse, NotFound, never>(
        payload.action === "resume"
          ? Effect.map(workflow.resume(payload.token), (resumed) => ({ ...resumed, action: "resume" as const }))
          : Effect.map(playbooks.execute(payload.playbook_id, requestOf(payload)), (run) => ({ ...run, action: "run" as const }))
      )
  })
}))
