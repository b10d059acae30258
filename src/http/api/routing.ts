/**
 * The routing configuration over HTTP (gateway-api.md "Routing
 * configuration"; docs/routing.md): operator.admin. The routes exist only
 * when gateway auth is enabled (`SVC_AUTH=off`: 404).
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { CorruptState } from "../../../services/routing/errors.ts"
import {
  RoutingConfigRecord,
  RoutingConfigRevertRequest,
  RoutingConfigUpdateRequest
} from "../../../services/routing/schema.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { Access, scope } from "./access.ts"
import { AUTH_ERRORS, REQUEST_ERRORS, wire } from "./errors.ts"

/** `GET /routing/config`, `PUT /routing/config`, `POST /routing/config/revert`. */
export const RoutingApi = HttpApiGroup.make("routing")
  .add(
    HttpApiEndpoint.get("get", "/routing/config", {
      success: RoutingConfigRecord,
      error: [...AUTH_ERRORS, wire(CorruptState)]
    }),
    HttpApiEndpoint.put("update", "/routing/config", {
      payload: RoutingConfigUpdateRequest,
      success: RoutingConfigRecord.pipe(HttpApiSchema.status(201)),
      error: REQUEST_ERRORS
    }),
    HttpApiEndpoint.post("revert", "/routing/config/revert", {
      payload: RoutingConfigRevertRequest,
      success: RoutingConfigRecord.pipe(HttpApiSchema.status(201)),
      error: [...REQUEST_ERRORS, wire(NotFound), wire(CorruptState)]
    })
  )
  .annotate(Access, scope("operator.admin"))
