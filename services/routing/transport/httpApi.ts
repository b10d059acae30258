/**
 * The routing configuration over HTTP (gateway-api.md "Routing
 * configuration"; docs/routing.md): operator.admin. The routes exist only
 * when gateway auth is enabled (`SVC_AUTH=off`: 404).
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { CorruptState } from "../errors.ts"
import {
  RoutingConfigRecord,
  RoutingConfigRevertRequest,
  RoutingConfigUpdateRequest
} from "../schema.ts"
import { NotFound } from "../../shared/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { AUTH_ERRORS, REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

/** `GET /routing/config`, `PUT /routing/config`, `POST /routing/config/revert`. */
export const RoutingApi = HttpApiGroup.make("routing")
  .add(
    HttpApiEndpoint.get("get", "/routing/config", {
      success: RoutingConfigRecord,
      error: [...AUTH_ERRORS, wire(CorruptState)]
    }).annotateMerge(documented(
      "The routing configuration in force (which agent answers a messenger thread): its latest revision, or " +
        "revision 0 with the default configuration when none was ever stored. docs/routing.md.",
      { response: { revision: 1, config: { v: 1, messenger: { default_agent_id: "default" } }, reason: "restored from a backup" } }
    )),
    HttpApiEndpoint.put("update", "/routing/config", {
      payload: RoutingConfigUpdateRequest,
      success: RoutingConfigRecord.pipe(HttpApiSchema.status(201)),
      error: REQUEST_ERRORS
    }).annotateMerge(documented(
      "Stores a new revision of the whole configuration (revisions are never changed) and announces it as " +
        "`routing.config.updated`.",
      {
        body: { config: { v: 1, messenger: { default_agent_id: "default", threads: { "telegram:42": "support" } } }, reason: "route the support chat" },
        response: { revision: 2, config: { messenger: { threads: { "telegram:42": "support" } } }, reason: "route the support chat" }
      }
    )),
    HttpApiEndpoint.post("revert", "/routing/config/revert", {
      payload: RoutingConfigRevertRequest,
      success: RoutingConfigRecord.pipe(HttpApiSchema.status(201)),
      error: [...REQUEST_ERRORS, wire(NotFound), wire(CorruptState)]
    }).annotateMerge(documented(
      "Goes back to an earlier revision's configuration by storing it as a new revision " +
        "(`reverted_from_revision`). 404 for an unknown revision.",
      { body: { revision: 1, reason: "undo" }, response: { revision: 3, reverted_from_revision: 1, config: { v: 1, messenger: { default_agent_id: "default" } } } }
    ))
  )
  .annotate(Access, scope("operator.admin"))
  .middleware(Authentication)
  .middleware(RequestErrors)
