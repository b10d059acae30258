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
} from "../schema.ts"
import { NotFound } from "../../shared/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, OPERATOR, OptionalBody } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

const params = { id: Schema.String }
const errors = [...REQUEST_ERRORS, wire(NotFound)]

/** `GET /playbooks`, `GET /playbooks/:id`, `POST /playbooks/:id/run`, `POST /playbooks/:id/execute`, `POST /playbooks/runtime`. */
export const PlaybooksApi = HttpApiGroup.make("playbooks")
  .add(
    HttpApiEndpoint.get("list", "/playbooks", { success: PlaybookListResponse, error: REQUEST_ERRORS }).annotateMerge(documented(
      "The playbooks loaded from `$SVC_HOME/playbooks/<name>/playbook.yml` (reloaded when the files change), by id, " +
        "and every file that did not load under `errors` with its message and line.",
      { response: { playbooks: [{ id: "hello", name: "Hello", version: "1", step_count: 1 }], errors: [] } }
    )),
    HttpApiEndpoint.get("get", "/playbooks/:id", { params, success: PlaybookDetail, error: errors }).annotateMerge(documented(
      "One playbook: its summary, the manifest as decoded and the compiled workflow steps. 404 for an unknown id.",
      { path: "/playbooks/hello", response: { id: "hello", steps: [{ type: "Http", idempotency_key: "playbook:hello:health" }] } }
    )),
    HttpApiEndpoint.post("run", "/playbooks/:id/run", { params, success: PlaybookDryRun, error: errors }).annotateMerge(documented(
      "Dry run: compiles the playbook and asks the policy bundle about each step (as the engine's gate would), " +
        "without executing or writing anything. A body is ignored.",
      {
        path: "/playbooks/hello/run",
        response: { playbook_id: "hello", steps: [{ step_id: "health", action: { type: "Http" }, policy: { decision: "allow" } }] }
      }
    )),
    HttpApiEndpoint.post("execute", "/playbooks/:id/execute", {
      params,
      payload: PlaybookExecuteRequest,
      success: PlaybookExecuteResponse,
      error: errors
    }).annotate(OptionalBody, true).annotateMerge(documented(
      "Runs the playbook as a durable workflow run (key `cron:playbook-<id>` unless given). The body is optional " +
        "(`{key?, lane?, plan_id?, request_id?, budgets?}`). 400 while `SVC_ENGINE_API_ENABLED` is not 1.",
      { path: "/playbooks/hello/execute", response: { status: "ok", run_id: "run-…", playbook_id: "hello", key: "cron:playbook-hello", steps_count: 1 } }
    )),
    HttpApiEndpoint.post("runtime", "/playbooks/runtime", {
      payload: PlaybookRuntimeRequest,
      success: PlaybookRuntimeResponse,
      error: errors
    }).annotateMerge(documented(
      "The runtime envelope: `{action: \"run\", playbook_id, …}` executes a playbook like `execute`; " +
        "`{action: \"resume\", token}` resumes a paused run like `POST /workflow/resume`. 400 while the engine is off.",
      {
        body: { action: "run", playbook_id: "hello", key: "agent:playbooks:main" },
        response: { status: "ok", action: "run", run_id: "run-…", playbook_id: "hello", key: "agent:playbooks:main" }
      }
    ))
  )
  .annotate(Access, OPERATOR)
  .middleware(Authentication)
  .middleware(RequestErrors)
