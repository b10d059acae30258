/**
 * Playbooks over HTTP (issue 13 §1; gateway-api.md "Playbooks";
 * docs/playbooks.md): the loaded playbooks and load errors, one playbook
 * with its compiled steps (operator.read); the dry run, the durable
 * execution and the runtime envelope (operator.write). Execution and the
 * runtime answer 400 `invalid_request` "unsupported: …" unless
 * `SVC_ENGINE_API_ENABLED=1`.
 *
 * `POST /playbooks/:id/execute` takes an optional JSON body
 * (`PlaybookExecuteRequest`; empty means `{}`: the {@link OptionalBody}
 * annotation).
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import {
  PlaybookDetail,
  PlaybookDryRun,
  PlaybookExecuteRequest,
  PlaybookExecuteResponse,
  PlaybookListResponse,
  PlaybookRuntimeRequest,
  PlaybookRuntimeResponse
} from "../../../services/playbooks/schema.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { Access, OPERATOR, OptionalBody } from "./access.ts"
import { REQUEST_ERRORS, wire } from "./errors.ts"

const params = { id: Schema.String }
const errors = [...REQUEST_ERRORS, wire(NotFound)]

/** `GET /playbooks`, `GET /playbooks/:id`, `POST /playbooks/:id/run`, `POST /playbooks/:id/execute`, `POST /playbooks/runtime`. */
export const PlaybooksApi = HttpApiGroup.make("playbooks")
  .add(
    HttpApiEndpoint.get("list", "/playbooks", { success: PlaybookListResponse, error: REQUEST_ERRORS }),
    HttpApiEndpoint.get("get", "/playbooks/:id", { params, success: PlaybookDetail, error: errors }),
    HttpApiEndpoint.post("run", "/playbooks/:id/run", { params, success: PlaybookDryRun, error: errors }),
    HttpApiEndpoint.post("execute", "/playbooks/:id/execute", {
      params,
      payload: PlaybookExecuteRequest,
      success: PlaybookExecuteResponse,
      error: errors
    }).annotate(OptionalBody, true),
    HttpApiEndpoint.post("runtime", "/playbooks/runtime", {
      payload: PlaybookRuntimeRequest,
      success: PlaybookRuntimeResponse,
      error: errors
    })
  )
  .annotate(Access, OPERATOR)
